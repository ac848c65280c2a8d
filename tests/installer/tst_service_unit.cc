// SPDX-License-Identifier: Apache-2.0
// installer/railyard-node.service: systemd accepts it as it is (no unknown keys, no bad values)
// and rates its hardening well, so a regression in either fails here rather than on a server.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "tests/support/qtest_main.h"
#include "tests/support/run_program.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;
using railyard::testing::SourcePath;

namespace {

using Result = railyard::testing::ProgramResult;

Result Run(const QString& program, const QStringList& args) {
  return railyard::testing::RunProgram(program, args, 60000);
}

// systemd-analyze rates exposure from 0.0 to 10.0 and takes the threshold in tenths: 20 is 2.0,
// well inside "OK" (below 3), so losing a directive or two of hardening fails the test.
constexpr int kExposureThreshold = 20;

}  // namespace

class ServiceUnitTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString unit_;

 private Q_SLOTS:
  // The unit as installed, but starting the binary just built (verify checks it is executable).
  void initTestCase() {
    if (QStandardPaths::findExecutable("systemd-analyze").isEmpty()) {
      QSKIP("systemd-analyze is not installed (Debian: package systemd)");
    }
    QFile source(SourcePath("installer/railyard-node.service"));
    QVERIFY(source.open(QIODevice::ReadOnly));
    QByteArray text = source.readAll();
    QVERIFY(text.contains("/usr/bin/railyard-node"));
    text.replace("/usr/bin/railyard-node", BuiltProgram("railyard-node"));
    unit_ = dir_.filePath("railyard-node.service");
    QFile copy(unit_);
    QVERIFY(copy.open(QIODevice::WriteOnly));
    copy.write(text);
  }

  void verifyIsClean() {
    // Unknown keys and bad values are only warnings (exit 0), so stderr must be empty too. The
    // man pages are the packages' business, not the unit's.
    const Result r = Run("systemd-analyze", {"verify", "--man=no", unit_});
    QVERIFY2(r.code == 0 && r.err.trimmed().isEmpty() && r.out.trimmed().isEmpty(),
             qPrintable(QString("exit %1\n%2%3").arg(r.code).arg(r.out, r.err)));
  }

  void securityRatesItWell() {
    const Result r =
        Run("systemd-analyze", {"security", "--offline=true",
                                "--threshold=" + QString::number(kExposureThreshold), unit_});
    QVERIFY2(r.code == 0, qPrintable(r.out.right(400) + r.err));
    QVERIFY2(r.out.contains("Overall exposure level"), qPrintable(r.out.right(400)));
  }

  void itIsANotifyServiceWithWatchdogAndReload() {
    QFile unit(unit_);
    QVERIFY(unit.open(QIODevice::ReadOnly));
    const QByteArray text = unit.readAll();
    for (const char* line :
         {"\nType=notify\n", "\nNotifyAccess=main\n",
          "\nWatchdogSec=", "\nExecReload=/bin/kill -HUP $MAINPID\n", "\nUser=railyard\n",
          "\nStateDirectory=railyard\n", "\nConfigurationDirectory=railyard\n"}) {
      QVERIFY2(text.contains(line), line);
    }
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ServiceUnitTest)
#include "tst_service_unit.moc"
