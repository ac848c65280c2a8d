// SPDX-License-Identifier: Apache-2.0
// `railyardctl rolling-restart --lab` on a lab of an updater and two replicas (in network
// namespaces as root, else on loopback addresses) while a client reads from all three: the last
// serving replica is refused first (the other one paused); then every node is drained, restarted
// (its PID changes), serves and catches up, replicas first and the updater last, without a failed
// read; and writes go on afterwards.
#include <QTest>
#include <map>

#include "tests/e2e/lab_support.h"
#include "tests/e2e/replication_support.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using namespace railyard;
using namespace railyard::e2e;

class LabRollingRestartTest : public QObject {
  Q_OBJECT

 private:
  LabFixture lab_;

  int RollingRestart(const QStringList& extra, QString* out) {
    return RunCtl(railyard::testing::BuiltProgram("railyardctl"),
                  QStringList{"rolling-restart", "--cluster", lab_.ClusterFile(), "--token",
                              QString::fromStdString(lab_.operator_token()), "--lab",
                              QString::fromStdString(lab_.dir()), "--drain-timeout", "20s",
                              "--serve-timeout", "30s"}
                      << extra,
                  out);
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(lab_.Up(2, {"--memtable-entries", "500"}));
    QVERIFY(WaitFor([&] { return lab_.CaughtUp("replica1", 0) && lab_.CaughtUp("replica2", 0); }));
  }

  void theLastServingReplicaIsRefused() {
    QCOMPARE(lab_.Lab({"pause", "replica2"}), 0);
    QString out;
    QCOMPARE(RollingRestart({"--only", "replica1"}, &out), 1);
    QVERIFY2(out.contains("replica1 is the last replica that serves"), qPrintable(out));
    QCOMPARE(lab_.TelemetryAt("replica1").state(), admin::NODE_SERVING);  // Not drained.
    QCOMPARE(lab_.Lab({"resume", "replica2"}), 0);
  }

  void everyNodeRestartsWithoutAFailedRead() {
    std::unique_ptr<rpc::Client> writer = lab_.ClientOf({"updater"});
    std::unique_ptr<rpc::Client> readers = lab_.ClientOf({"updater", "replica1", "replica2"});
    QVERIFY(writer && readers);
    uint64_t position = 0;
    QVERIFY(Put(*writer, 11, "kept across restarts", &position).ok());
    QVERIFY(WaitFor([&] {
      return lab_.CaughtUp("replica1", position) && lab_.CaughtUp("replica2", position);
    }));
    std::map<std::string, int> pids_before;
    for (const lab::Host& h : lab_.state().host()) pids_before[h.name()] = h.pid();

    ReadLoop loop(*readers, 11);
    QVERIFY(WaitFor([&] { return loop.ok() > 100; }));
    QString out;
    const int rc = RollingRestart({}, &out);
    loop.Stop();
    QVERIFY2(rc == 0, qPrintable(out));
    qInfo("%s", qPrintable(out));
    QVERIFY2(out.contains("[1/3] replica") && out.contains("[3/3] updater") &&
                 out.contains("rolling restart done"),
             qPrintable(out));
    QVERIFY(lab_.Reload());
    for (const lab::Host& h : lab_.state().host()) {
      QVERIFY2(h.pid() != pids_before[h.name()], qPrintable(QString::fromStdString(h.name())));
      QCOMPARE(lab_.TelemetryAt(h.name()).state(), admin::NODE_SERVING);
    }
    qInfo("reads during the rolling restart: %llu answered, %llu failed (%s)",
          static_cast<unsigned long long>(loop.ok()),
          static_cast<unsigned long long>(loop.failed()), loop.last_failure().c_str());
    QCOMPARE(loop.failed(), uint64_t{0});

    // The data is still there, and writes go on.
    std::optional<std::string> doc;
    QVERIFY(WaitFor([&] { return Get(*readers, 11, position, &doc).status.ok(); }));
    QCOMPARE(doc.value_or(""), std::string("kept across restarts"));
    std::unique_ptr<rpc::Client> writer_after = lab_.ClientOf({"updater"});
    QVERIFY(writer_after);
    QVERIFY(Put(*writer_after, 12, "after", &position).ok());
  }

  void cleanupTestCase() { QVERIFY(lab_.Down()); }
};

RAILYARD_QTEST_GUILESS_MAIN(LabRollingRestartTest)
#include "tst_lab_rolling_restart.moc"
