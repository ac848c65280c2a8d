// SPDX-License-Identifier: Apache-2.0
// The console's flags for a view and a Prometheus range (--tab, --window, --at, --prometheus):
// each wrong one exits with 2 and says why in plain words, and what View > Copy command line
// gives opens that view. A suite of its own beside tst_ui_railyard_app: each runs the console
// several times, and together under ASan they came near a quarter of one timeout.
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

class ConsoleFlagsTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void wrongViewAndRangeFlagsExitWithTwoInPlainWords() {
    QFile whole(QString(railyard::testing::SourcePath("tests/data/console_small.rec")));
    const struct {
      QStringList args;
      const char* says;
    } cases[] = {
        {{"--recording", whole.fileName(), "--tab", "graphs"}, "--tab graphs: one of overview"},
        {{"--recording", whole.fileName(), "--window", "2h"}, "--window 2h: 1m, 5m"},
        {{"--recording", whole.fileName(), "--at", "yesterday"}, "--at yesterday: a UTC time"},
        {{"--prometheus", "prom:9090"}, "a URL such as http://"},
        {{"--prometheus", "http://127.0.0.1:1", "--since", "1h"},
         "Prometheus at http://127.0.0.1:1"},
        {{"--prometheus", "http://127.0.0.1:1", "--demo"}, "--demo"},
    };
    for (const auto& c : cases) {
      QProcess process;
      process.start(railyard::testing::BuiltProgram("railyard"),
                    c.args + QStringList{"--quit-after-s", "1"});
      QVERIFY(process.waitForFinished(20000));
      const QString err = QString::fromUtf8(process.readAllStandardError());
      QVERIFY2(process.exitCode() == 2, qPrintable(c.args.join(' ') + ": " + err));
      QVERIFY2(err.contains(c.says), qPrintable(c.args.join(' ') + ": " + err));
    }
  }

  // What View > Copy command line gives opens that view: the tab, window and position asked.
  void theViewsCommandLineOpensThatView() {
    QTemporaryDir dir;
    const QString copy = dir.filePath("small.rec");
    QVERIFY(
        QFile::copy(QString(railyard::testing::SourcePath("tests/data/console_small.rec")), copy));
    const QString shot = dir.filePath("view.png");
    QProcess process;
    process.start(railyard::testing::BuiltProgram("railyard"),
                  {"--recording", copy, "--tab", "throughput", "--window", "6h", "--at",
                   "2020-01-01T00:00:00Z", "--quit-after-s", "1", "--screenshot", shot,
                   "--window-size", "1024x700"});
    QVERIFY(process.waitForFinished(30000));
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    QImage image(shot);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), QSize(1024, 700));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ConsoleFlagsTest)
#include "tst_console_flags.moc"
