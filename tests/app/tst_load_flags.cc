// SPDX-License-Identifier: Apache-2.0
// railyardctl load's subsetting flags: deterministic subsetting without --client-index is a usage
// error that names the flag, since each client would otherwise take a random, uneven subset.
#include <QProcess>
#include <QTest>
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

class LoadFlagsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void deterministicSubsettingNeedsAClientIndex() {
    QProcess process;
    // Nothing listens there, and nothing is dialled: the flags are refused first.
    process.start(BuiltProgram("railyardctl"),
                  {"load", "-s", "127.0.0.1:1", "--subset", "deterministic", "--subset-size", "1",
                   "--duration-s", "1"});
    QVERIFY(process.waitForFinished(10000));
    const QString err = QString::fromUtf8(process.readAllStandardError());
    QCOMPARE(process.exitCode(), 2);
    QVERIFY2(err.contains("--client-index"), qPrintable(err));
  }

  void helpOffersTheClientIndex() {
    QProcess process;
    process.start(BuiltProgram("railyardctl"), {"load", "--help"});
    QVERIFY(process.waitForFinished(10000));
    QVERIFY(QString::fromUtf8(process.readAllStandardOutput()).contains("--client-index"));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(LoadFlagsTest)
#include "tst_load_flags.moc"
