// SPDX-License-Identifier: Apache-2.0
// The Quick start's main job: `railyardctl demo` runs, balances, prints, and stops cleanly.
#include <QProcess>
#include <QRegularExpression>
#include <QTest>
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

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
