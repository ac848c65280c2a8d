// SPDX-License-Identifier: Apache-2.0
// The console's flags for a view and a Prometheus range (--tab, --window, --from/--to, --at,
// --prometheus):
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
 private:
  QTemporaryDir home_;

 private Q_SLOTS:
  void initTestCase() {
    // The console keeps its layout and audit log under these: the test's own, never the user's.
    QVERIFY(home_.isValid());
    qputenv("XDG_CONFIG_HOME", home_.filePath("config").toUtf8());
    qputenv("XDG_DATA_HOME", home_.filePath("data").toUtf8());
    qputenv("XDG_CACHE_HOME", home_.filePath("cache").toUtf8());
  }

  void wrongViewAndRangeFlagsExitWithTwoInPlainWords() {
    QFile whole(QString(railyard::testing::SourcePath("tests/data/console_small.rec")));
    const struct {
      QStringList args;
      const char* says;
    } cases[] = {
        {{"--recording", whole.fileName(), "--tab", "graphs"}, "--tab graphs: one of overview"},
        {{"--recording", whole.fileName(), "--window", "2h"}, "--window 2h: 1m, 5m"},
        {{"--recording", whole.fileName(), "--at", "yesterday"}, "--at yesterday: a UTC time"},
        {{"--recording", whole.fileName(), "--from", "noon"}, "--from noon: a UTC time"},
        {{"--recording", whole.fileName(), "--from", "1h", "--to", "2h"},
         "--from 1h is not before --to 2h"},
        {{"--recording", whole.fileName(), "--to", "1h"}, "--to requires --from"},
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

  // What View > Copy command line gives opens that view: the tab, window, range and position
  // asked, which the console says back on its way out.
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
    const QString said = QString::fromUtf8(process.readAllStandardOutput());
    QVERIFY2(
        said.contains("view: railyard --recording " + copy + " --tab throughput --window 6h --at "),
        qPrintable(said));

    // A range the charts are held on, on the Replication tab, comes back as it was given.
    QProcess held;
    held.start(railyard::testing::BuiltProgram("railyard"),
               {"--recording", copy, "--tab", "replication", "--window", "15m", "--from",
                "2026-11-29T03:10:00Z", "--to", "2026-11-29T03:40:05Z", "--quit-after-s", "1",
                "--screenshot", dir.filePath("held.png")});
    QVERIFY(held.waitForFinished(30000));
    QVERIFY2(held.exitCode() == 0, held.readAllStandardError().constData());
    const QString held_said = QString::fromUtf8(held.readAllStandardOutput());
    QVERIFY2(held_said.contains(" --tab replication --window 15m --from 2026-11-29T03:10:00Z --to "
                                "2026-11-29T03:40:05Z --at "),
             qPrintable(held_said));
  }

  // A range the charts were held on when a live console closed comes back on the next live start
  // on those nodes, but not in a demo, whose nodes are new each time (its charts would be held on
  // a past they never had).
  void aSavedRangeComesBackLiveButNotInADemo() {
    QTemporaryDir dir;
    auto view_of = [&](const QStringList& args) {
      QProcess process;
      process.start(
          railyard::testing::BuiltProgram("railyard"),
          args + QStringList{"--quit-after-s", "1", "--screenshot", dir.filePath("shot.png")});
      if (!process.waitForFinished(60000) || process.exitCode() != 0) {
        return QString("failed: ") + process.readAllStandardError();
      }
      const QString out = QString::fromUtf8(process.readAllStandardOutput());
      return out.mid(out.indexOf("view: "));
    };
    // Nothing listens on port 1: the console watches a node it cannot reach, as after an outage.
    const QStringList live = {"-n", "127.0.0.1:1"};
    QVERIFY2(view_of(live + QStringList{"--from", "2h", "--to", "1h"}).contains(" --from "),
             "held by the flags");
    const QString again = view_of(live);
    QVERIFY2(again.contains(" --from "), qPrintable(again));
    const QString demo = view_of({"--demo"});
    QVERIFY2(demo.startsWith("view: railyard --demo") && !demo.contains(" --from "),
             qPrintable(demo));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ConsoleFlagsTest)
#include "tst_console_flags.moc"
