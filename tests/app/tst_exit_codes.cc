// SPDX-License-Identifier: Apache-2.0
// docs/guide.md's exit codes for the command-line programs: 0 for --help and --version, 2 for any
// usage error (CLI11 alone exits with 105-109), with the reason on stderr.
#include <QFile>
#include <QProcess>
#include <QTest>

#include "tests/support/qtest_main.h"
#include "tests/support/run_program.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

namespace {

using Result = railyard::testing::ProgramResult;

Result Run(const QString& program, const QStringList& args) {
  return railyard::testing::RunProgram(program, args, 20000);
}

}  // namespace

class ExitCodesTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void usageErrorsExitWithTwo_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("says");
    QTest::newRow("ctl unknown flag")
        << BuiltProgram("railyardctl") << QStringList{"status", "--no-such-flag"}
        << "--no-such-flag";
    QTest::newRow("ctl no subcommand")
        << BuiltProgram("railyardctl") << QStringList{} << "subcommand";
    QTest::newRow("ctl bad number")
        << BuiltProgram("railyardctl") << QStringList{"demo", "--nodes", "many"} << "many";
    QTest::newRow("ctl out of range")
        << BuiltProgram("railyardctl") << QStringList{"demo", "--nodes", "0"} << "--nodes";
    QTest::newRow("ctl alerts bad rules")
        << BuiltProgram("railyardctl")
        << QStringList{"alerts", "check", "--rules", railyard::testing::SourcePath("README.md")}
        << "README.md: line ";
    QTest::newRow("ctl alerts export without a format")
        << BuiltProgram("railyardctl") << QStringList{"alerts", "export"} << "--prometheus";
    QTest::newRow("node unknown flag")
        << BuiltProgram("railyard-node") << QStringList{"--no-such-flag"} << "--no-such-flag";
    QTest::newRow("node missing value")
        << BuiltProgram("railyard-node") << QStringList{"--config"} << "--config";
  }

  void usageErrorsExitWithTwo() {
    QFETCH(QString, program);
    QFETCH(QStringList, args);
    QFETCH(QString, says);
    const Result r = Run(program, args);
    QVERIFY2(r.code == 2, qPrintable(QString("exit %1, stderr: %2").arg(r.code).arg(r.err)));
    QVERIFY2(r.err.contains(says), qPrintable(r.err));
  }

  // The package's Prometheus rules are what `railyardctl alerts export --prometheus` writes.
  void alertsExportWritesTheShippedPrometheusRules() {
    const Result r = Run(BuiltProgram("railyardctl"), {"alerts", "export", "--prometheus"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QFile shipped(railyard::testing::SourcePath("resources/monitoring/railyard-alerts.yml"));
    QVERIFY(shipped.open(QIODevice::ReadOnly));
    QCOMPARE(r.out, QString::fromUtf8(shipped.readAll()));
    const Result check = Run(BuiltProgram("railyardctl"), {"alerts", "check"});
    QCOMPARE(check.code, 0);
    QVERIFY2(check.out.contains("RailyardNodeDown") && check.out.contains("SERVER_P99_MS"),
             qPrintable(check.out));
  }

  void helpAndVersionExitWithZero() {
    for (const QString& program :
         {QString(BuiltProgram("railyardctl")), QString(BuiltProgram("railyard-node"))}) {
      const Result help = Run(program, {"--help"});
      QCOMPARE(help.code, 0);
      QVERIFY(help.out.contains("--version"));
      const Result version = Run(program, {"--version"});
      QCOMPARE(version.code, 0);
      QVERIFY2(version.out.startsWith("railyard"), qPrintable(version.out));
    }
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ExitCodesTest)
#include "tst_exit_codes.moc"
