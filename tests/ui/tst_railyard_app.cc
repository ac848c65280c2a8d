// SPDX-License-Identifier: Apache-2.0
// The console binary as the Quick start runs it: `railyard --demo` offscreen starts its cluster,
// prints a summary each second, writes a non-empty screenshot and quits when told.
#include <QElapsedTimer>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;
using railyard::testing::SourcePath;

class RailyardAppTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    // The console keeps its layout, recent files and audit log under these: a folder of the
    // test's own, never the user's.
    QVERIFY(home_.isValid());
    qputenv("XDG_CONFIG_HOME", home_.filePath("config").toUtf8());
    qputenv("XDG_DATA_HOME", home_.filePath("data").toUtf8());
    qputenv("XDG_CACHE_HOME", home_.filePath("cache").toUtf8());
  }

  void demoRunsOffscreenAndWritesAScreenshot() {
    QTemporaryDir dir;
    const QString shot = dir.filePath("demo.png");
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("DISPLAY");
    env.remove("WAYLAND_DISPLAY");
    env.remove("QT_QPA_PLATFORM");  // The binary must pick offscreen by itself.
    process.setProcessEnvironment(env);
    // Until all six are seen serving in a summary line (printed every second; a loaded
    // machine's replicas take longer to catch up), then stopped as Ctrl-C would; --quit-after-s
    // only bounds a console that never gets there.
    process.start(BuiltProgram("railyard"),
                  {"--demo", "--quit-after-s", "90", "--screenshot", shot});
    QVERIFY(process.waitForStarted(5000));
    QString out;
    QElapsedTimer waited;
    waited.start();
    while (!out.contains("6 nodes: 6 serving") && process.state() == QProcess::Running &&
           waited.elapsed() < 60000) {
      process.waitForReadyRead(1000);
      out += QString::fromUtf8(process.readAllStandardOutput());
    }
    process.terminate();  // SIGTERM: the console writes its last screenshot and stops the demo.
    QVERIFY(process.waitForFinished(30000));
    out += QString::fromUtf8(process.readAllStandardOutput());
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QVERIFY2(process.exitCode() == 0, qPrintable(process.readAllStandardError().right(2000)));
    QVERIFY2(out.contains("running offscreen"), qPrintable(out));
    // The 3 nodes and the demo's 3 load clients, which report their own figures as client rows.
    QVERIFY2(out.contains("6 nodes: 6 serving"), qPrintable(out));
    QVERIFY(out.contains("screenshot: " + shot));
    QVERIFY(QFileInfo(shot).size() > 0);
    const QImage image(shot);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 640);
    QVERIFY(out.contains("demo finished"));
  }

  void helpVersionAndBadFlags() {
    QProcess process;
    process.start(BuiltProgram("railyard"), {"--version"});
    QVERIFY(process.waitForFinished(10000));
    QCOMPARE(process.exitCode(), 0);
    const QByteArray version = process.readAllStandardOutput();
    QVERIFY(version.startsWith("railyard "));
    // Says which malloc it runs on, and it is the one the build chose.
    QVERIFY2(version.contains(RAILYARD_CONSOLE_MALLOC == QStringLiteral("jemalloc")
                                  ? "\nmalloc: jemalloc "
                                  : "\nmalloc: the C library's malloc"),
             version.constData());
    process.start(BuiltProgram("railyard"), {"--help"});
    QVERIFY(process.waitForFinished(10000));
    QCOMPARE(process.exitCode(), 0);
    const QByteArray help = process.readAllStandardOutput();
    for (const char* flag : {"--demo", "--cluster", "--node", "--token-file", "--recording",
                             "--read-only", "--screenshot", "--quit-after-s", "--poll-hz"}) {
      QVERIFY2(help.contains(flag), flag);
    }
    process.start(BuiltProgram("railyard"), {"--poll-hz", "0"});
    QVERIFY(process.waitForFinished(10000));
    QVERIFY(process.exitCode() != 0);
    QVERIFY(!process.readAllStandardError().isEmpty());
    process.start(BuiltProgram("railyard"), {"--node", "nonsense", "--quit-after-s", "1"});
    QVERIFY(process.waitForFinished(20000));
    QCOMPARE(process.exitCode(), 2);
    QVERIFY(process.readAllStandardError().contains("host:port"));
  }

  // B22: every usage or launch error exits with 2 and says why in plain words on stderr (no
  // dialog offscreen: nobody would see it, and the process would wait on it).
  void everyLaunchErrorExitsWithTwoInPlainWords() {
    QTemporaryDir dir;
    QFile whole(QString(SourcePath("tests/data/console_small.rec")));
    QVERIFY(whole.open(QIODevice::ReadOnly));
    const QByteArray bytes = whole.readAll();
    QFile cut(dir.filePath("truncated.rec"));
    QVERIFY(cut.open(QIODevice::WriteOnly));
    cut.write(bytes.left(bytes.size() / 3));
    cut.close();
    QFile bad(dir.filePath("bad.textproto"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("node { name: ");
    bad.close();
    QFile empty(dir.filePath("empty.token"));
    QVERIFY(empty.open(QIODevice::WriteOnly));
    empty.close();
    const struct {
      QStringList args;
      const char* says;
    } cases[] = {
        {{"--recording", dir.filePath("missing.rec")}, "missing.rec"},
        {{"--recording", cut.fileName()}, "truncated.rec is a damaged or incomplete recording"},
        {{"--cluster", bad.fileName()}, "bad.textproto"},
        {{"--token-file", empty.fileName()}, "empty.token holds no token"},
        {{"--token-file", dir.path()}, "--token-file"},
        {{"--window-size", "big"}, "--window-size"},
        {{"--no-such-flag"}, "--no-such-flag"},
    };
    for (const auto& c : cases) {
      QProcess process;
      process.start(BuiltProgram("railyard"), c.args + QStringList{"--quit-after-s", "1"});
      QVERIFY(process.waitForFinished(20000));
      const QString err = QString::fromUtf8(process.readAllStandardError());
      QVERIFY2(process.exitCode() == 2, qPrintable(c.args.join(' ') + ": " + err));
      QVERIFY2(err.contains(c.says), qPrintable(c.args.join(' ') + ": " + err));
      for (const char* leak : {"SELECT", "SQLite", "Corruption:", "InvalidArgument:"}) {
        QVERIFY2(!err.contains(leak), qPrintable(err));
      }
    }
  }

  // --window-size sets the size the screenshot is taken at.
  void windowSizeFlagSizesTheScreenshot() {
    QTemporaryDir dir;
    const QString copy = dir.filePath("small.rec");
    QVERIFY(QFile::copy(QString(SourcePath("tests/data/console_small.rec")), copy));
    for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
      const QString shot =
          dir.filePath(QString("replay_%1x%2.png").arg(size.width()).arg(size.height()));
      QProcess process;
      process.start(BuiltProgram("railyard"),
                    {"--recording", copy, "--quit-after-s", "1", "--screenshot", shot,
                     "--window-size", QString("%1x%2").arg(size.width()).arg(size.height())});
      QVERIFY(process.waitForFinished(30000));
      QCOMPARE(process.exitCode(), 0);
      QCOMPARE(QImage(shot).size(), size);
    }
  }

  // `railyard FILE`, as the desktop entry's `Exec=railyard %f` runs it on a double-click, opens
  // the recording as --recording does (a damaged one is refused as such); both at once is a usage
  // error.
  void aBareFileArgumentReplaysIt() {
    QTemporaryDir dir;
    const QString copy = dir.filePath("small.rec");
    QVERIFY(QFile::copy(QString(SourcePath("tests/data/console_small.rec")), copy));
    QFile whole(copy);
    QVERIFY(whole.open(QIODevice::ReadOnly));
    QFile cut(dir.filePath("truncated.rec"));
    QVERIFY(cut.open(QIODevice::WriteOnly));
    cut.write(whole.readAll().left(whole.size() / 3));
    cut.close();
    QProcess process;
    process.start(BuiltProgram("railyard"),
                  {copy, "--quit-after-s", "1", "--screenshot", dir.filePath("replay.png")});
    QVERIFY(process.waitForFinished(30000));
    QVERIFY2(process.exitCode() == 0, qPrintable(process.readAllStandardError()));
    process.start(BuiltProgram("railyard"), {cut.fileName(), "--quit-after-s", "1"});
    QVERIFY(process.waitForFinished(30000));
    QCOMPARE(process.exitCode(), 2);
    QVERIFY(process.readAllStandardError().contains(
        "truncated.rec is a damaged or incomplete recording"));
    process.start(BuiltProgram("railyard"), {copy, "--recording", copy, "--quit-after-s", "1"});
    QVERIFY(process.waitForFinished(30000));
    QCOMPARE(process.exitCode(), 2);
  }

  void replaysARecordingOffscreen() {
    QTemporaryDir dir;
    const QString copy = dir.filePath("small.rec");
    QVERIFY(QFile::copy(QString(SourcePath("tests/data/console_small.rec")), copy));
    const QString shot = dir.filePath("replay.png");
    QProcess process;
    process.start(BuiltProgram("railyard"),
                  {"--recording", copy, "--quit-after-s", "2", "--screenshot", shot});
    QVERIFY(process.waitForFinished(30000));
    QCOMPARE(process.exitCode(), 0);
    QVERIFY(process.readAllStandardOutput().contains("3 nodes:"));
    QVERIFY(!QImage(shot).isNull());
  }

 private:
  QTemporaryDir home_;
};

RAILYARD_QTEST_GUILESS_MAIN(RailyardAppTest)
#include "tst_railyard_app.moc"
