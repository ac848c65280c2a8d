// The .deb: CPack builds it, dpkg-deb unpacks it, and every binary in it runs.
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class PackageTest : public QObject {
  Q_OBJECT

  static int Run(const QString& program, const QStringList& args, QString* out,
                 const QString& cwd = {}) {
    QProcess p;
    if (!cwd.isEmpty()) p.setWorkingDirectory(cwd);
    p.start(program, args);
    if (!p.waitForFinished(240000)) {
      p.kill();
      p.waitForFinished(5000);
      return -1;
    }
    *out = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  }

 private Q_SLOTS:
  void debUnpacksAndItsBinariesRun() {
    QTemporaryDir dir;
    QString out;
    QCOMPARE(
        Run("cpack",
            {"-G", "DEB", "-B", dir.path(), "--config", QString(BUILD_DIR) + "/CPackConfig.cmake"},
            &out, BUILD_DIR),
        0);
    const QStringList debs = QDir(dir.path()).entryList({"railyard_*.deb"}, QDir::Files);
    QVERIFY2(debs.size() == 1, qPrintable(out));
    const QString root = dir.filePath("root");
    QCOMPARE(Run("dpkg-deb", {"-x", dir.filePath(debs.front()), root}, &out), 0);
    for (const char* binary : {"railyard-node", "railyardctl"}) {
      QCOMPARE(Run(root + "/usr/bin/" + binary, {"--version"}, &out), 0);
      QVERIFY2(out.startsWith(binary), qPrintable(out));
    }
    QVERIFY(QFile::exists(root + "/usr/lib/systemd/system/railyard-node.service"));
    QVERIFY(QFile::exists(root + "/usr/share/railyard/examples/railyard-node.textproto"));
    // The console's menu entry and its icons.
    QFile desktop(root + "/usr/share/applications/railyard.desktop");
    QVERIFY(desktop.open(QIODevice::ReadOnly));
    const QByteArray entry = desktop.readAll();
    QVERIFY(entry.startsWith("[Desktop Entry]"));
    QVERIFY(entry.contains("\nExec=railyard") && entry.contains("\nIcon=railyard\n"));
    QVERIFY(QFile::exists(root + "/usr/share/icons/hicolor/scalable/apps/railyard.svg"));
    QFile png(root + "/usr/share/icons/hicolor/256x256/apps/railyard.png");
    QVERIFY(png.open(QIODevice::ReadOnly));
    QCOMPARE(png.read(8), QByteArray("\x89PNG\r\n\x1a\n", 8));
    QCOMPARE(Run("dpkg-deb", {"--field", dir.filePath(debs.front()), "Package"}, &out), 0);
    QCOMPARE(out.trimmed(), QString("railyard"));
  }
};

QTEST_GUILESS_MAIN(PackageTest)
#include "tst_package.moc"
