// SPDX-License-Identifier: Apache-2.0
// The Quick start's main job: `railyardctl demo` runs, balances, prints, and stops cleanly.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>
#include <csignal>
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

namespace {

// The folder a failed demo kept, as it prints it; empty if it kept none.
QString KeptFolder(const QString& demo_output) {
  return QRegularExpression(R"(logs are kept: (\S+)/node\*/node\.log)")
      .match(demo_output)
      .captured(1);
}

// The end of each node's log in the folder a failed demo kept, then removes it.
void PrintKeptLogs(const QString& demo_output) {
  const QString kept = KeptFolder(demo_output);
  if (kept.isEmpty()) return;
  const QDir folder(kept);
  for (const QString& node : folder.entryList({"node*"}, QDir::Dirs)) {
    QFile log(folder.filePath(node + "/node.log"));
    if (log.open(QIODevice::ReadOnly)) {
      qInfo("%s's log, its end:\n%s", qPrintable(node), log.readAll().right(3000).constData());
    }
  }
  QDir(folder).removeRecursively();
}

}  // namespace

class RailyardctlDemoTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void demoRunsAndStopsCleanly() {
    QProcess process;
    process.start(BuiltProgram("railyardctl"),
                  {"demo", "--duration-s", "2", "--interval-ms", "500"});
    QVERIFY(process.waitForStarted(5000));
    QVERIFY(process.waitForFinished(30000));
    const QString out = QString::fromUtf8(process.readAllStandardOutput());
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    if (process.exitCode() != 0) PrintKeptLogs(out);
    QCOMPARE(process.exitCode(), 0);
    for (const char* node : {"node0", "node1", "node2"}) QVERIFY2(out.contains(node), node);
    QVERIFY(out.contains("railyardctl status -n 127.0.0.1:"));  // Tells the operator where.
    // Requests flowed and none failed once the pools were up.
    const QRegularExpressionMatch summary =
        QRegularExpression(R"(demo finished: (\d+) requests succeeded, (\d+) failed)").match(out);
    QVERIFY2(summary.hasMatch(), qPrintable(out.right(400)));
    QVERIFY(summary.captured(1).toULongLong() > 100);
    QCOMPARE(summary.captured(2).toULongLong(), 0ull);
  }

  // The load line the demo prints works as it is: the nodes require the demo's writer token, and
  // a load without it is refused, saying so.
  void thePrintedLoadLineCarriesTheDemosToken() {
    QProcess demo;
    demo.start(BuiltProgram("railyardctl"), {"demo", "--interval-ms", "300"});
    QVERIFY(demo.waitForStarted(5000));
    QString out;
    QRegularExpressionMatch line;
    const QRegularExpression load_line(R"(railyardctl (load --cluster \S+ --data-token-file \S+))");
    for (int i = 0; i < 300 && !line.hasMatch(); ++i) {  // Up to 30 s for the first table.
      demo.waitForReadyRead(100);
      out += QString::fromUtf8(demo.readAllStandardOutput());
      line = load_line.match(out);
    }
    QVERIFY2(line.hasMatch(), qPrintable(out.right(400)));
    const QStringList with_token = line.captured(1).split(' ');
    QProcess load;
    load.start(BuiltProgram("railyardctl"), with_token + QStringList{"--duration-s", "1", "--keys",
                                                                     "100", "--concurrency", "2"});
    QVERIFY(load.waitForFinished(60000));
    QVERIFY2(load.exitCode() == 0, load.readAllStandardOutput().right(600).constData());
    QStringList without_token = with_token.mid(0, 3);  // load --cluster FILE
    load.start(BuiltProgram("railyardctl"),
               without_token + QStringList{"--duration-s", "1", "--keys", "100"});
    QVERIFY(load.waitForFinished(60000));
    const QByteArray refused = load.readAllStandardOutput() + load.readAllStandardError();
    QCOMPARE(load.exitCode(), 1);
    QVERIFY2(refused.contains("UNAUTHENTICATED"), refused.right(600).constData());
    demo.terminate();
    QVERIFY(demo.waitForFinished(15000));
    out += QString::fromUtf8(demo.readAllStandardOutput());
    // Its last lines say why it failed (the summary counts failed requests), QTest's message
    // being too short for them.
    if (demo.exitCode() != 0) {
      qInfo("demo's last output:\n%s\nstderr:\n%s", qPrintable(out.right(600)),
            demo.readAllStandardError().right(1500).constData());
      PrintKeptLogs(out);
    }
    QCOMPARE(demo.exitCode(), 0);
  }

  // A demo whose requests failed exits 1, says what failed and keeps its temporary folder, whose
  // logs are the evidence: here its updater is killed under it.
  void aDemoWhoseRequestsFailKeepsItsLogs() {
    QProcess demo;
    demo.start(BuiltProgram("railyardctl"), {"demo", "--interval-ms", "200"});
    QVERIFY(demo.waitForStarted(5000));
    QVERIFY(demo.waitForReadyRead(30000));  // First table printed: its nodes serve.
    // Its nodes are its children, the updater (node0) started first.
    QFile children(QString("/proc/%1/task/%1/children").arg(demo.processId()));
    QVERIFY(children.open(QIODevice::ReadOnly));
    const QList<QByteArray> pids = children.readAll().trimmed().split(' ');
    QCOMPARE(pids.size(), 3);
    const pid_t updater = static_cast<pid_t>(pids.front().toLong());
    QVERIFY(updater > 0);
    QCOMPARE(::kill(updater, SIGKILL), 0);
    QString out;
    const QRegularExpression failed(R"(\d+ requests succeeded, [1-9]\d* failed)");
    // Writes fail from now on; a table or two later it is stopped and sums up.
    QVERIFY(demo.waitForReadyRead(10000));
    demo.terminate();
    QVERIFY(demo.waitForFinished(15000));
    out = QString::fromUtf8(demo.readAllStandardOutput());
    QCOMPARE(demo.exitCode(), 1);
    QVERIFY2(failed.match(out).hasMatch(), qPrintable(out.right(600)));
    const QString kept = KeptFolder(out);
    QVERIFY2(!kept.isEmpty(), qPrintable(out.right(600)));
    QDir folder(kept);
    QVERIFY(QFile::exists(folder.filePath("node0/node.log")));
    QVERIFY(QFile::exists(folder.filePath("node1/node.log")));
    QVERIFY(folder.removeRecursively());
  }

  void sigtermStopsTheDemo() {
    QProcess process;
    process.start(BuiltProgram("railyardctl"), {"demo", "--interval-ms", "200"});
    QVERIFY(process.waitForStarted(5000));
    QVERIFY(process.waitForReadyRead(30000));  // First table printed: it is running.
    process.terminate();
    QVERIFY(process.waitForFinished(15000));
    QCOMPARE(process.exitCode(), 0);
    QVERIFY(process.readAllStandardOutput().contains("demo finished"));
  }

  void helpAndVersionWork() {
    QProcess process;
    process.start(BuiltProgram("railyardctl"), {"--version"});
    QVERIFY(process.waitForFinished(10000));
    QCOMPARE(process.exitCode(), 0);
    QVERIFY(process.readAllStandardOutput().startsWith("railyardctl "));
    process.start(BuiltProgram("railyardctl"), {"demo", "--help"});
    QVERIFY(process.waitForFinished(10000));
    QCOMPARE(process.exitCode(), 0);
    QVERIFY(process.readAllStandardOutput().contains("--memtable-entries"));
  }

  void badArgumentsFailClearly() {
    QProcess process;
    process.start(BuiltProgram("railyardctl"), {"demo", "--nodes", "0"});
    QVERIFY(process.waitForFinished(10000));
    QVERIFY(process.exitCode() != 0);
    QVERIFY(!process.readAllStandardError().isEmpty());
  }
};

RAILYARD_QTEST_GUILESS_MAIN(RailyardctlDemoTest)
#include "tst_railyardctl_demo.moc"
