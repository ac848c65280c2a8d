// SPDX-License-Identifier: Apache-2.0
// `railyardctl lab`'s partition drills on real hosts: an updater and two replicas, each
// railyard-node in a network namespace of its own, joined by a bridge the lab made (no route
// out). Needs root and network namespaces; skipped with the reason otherwise, never passed.
//  - A replica cut silently from its updater (bridge isolation): disconnected within the stated
//    time, its lag unknown; reads carrying a newer position never see an older document, and a
//    client balancing over both replicas goes on without a failed call; healed, it converges and
//    holds every copy the updater holds.
//  - A replica cut silently from everything: a client's calls move to the other replica; the
//    failed calls and the time to move are printed.
//  - The updater cut silently from everything: reads go on from the replicas, a write fails with
//    a clear error, the replicas read disconnected; healed, writes resume and the replicas catch
//    up.
//  - lab down removes every namespace and process the lab made.
#include <QTest>

#include "core/cluster/admin_client.h"
#include "core/cluster/doc_copies.h"
#include "core/load/lab.h"
#include "core/load/lab_network.h"
#include "core/node/replication_lag.h"
#include "tests/e2e/lab_support.h"
#include "tests/e2e/replication_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard;
using namespace railyard::e2e;
using Clock = std::chrono::steady_clock;

namespace {

// The stated time for a silent updater (docs/figures.md: the fetch wait plus the allowance),
// with room for a loaded machine.
constexpr auto kDisconnectedWithin =
    std::chrono::milliseconds(1000) + node::kFollowSilenceAllowance + std::chrono::seconds(10);

}  // namespace

class LabPartitionsTest : public QObject {
  Q_OBJECT

 private:
  LabFixture lab_;

  int Lab(const QStringList& args) { return lab_.Lab(args); }
  admin::Replication ReplicationAt(const std::string& name) const {
    return lab_.TelemetryAt(name).replication();
  }
  std::unique_ptr<rpc::Client> ClientOf(const std::vector<std::string>& hosts) const {
    return lab_.ClientOf(hosts);
  }
  bool CaughtUp(const std::string& replica, uint64_t position) const {
    return lab_.CaughtUp(replica, position);
  }
  std::vector<cluster::NodeCopy> Copies(uint64_t id) const {
    std::vector<cluster::CopyTarget> targets;
    for (const lab::Host& h : lab_.state().host()) {
      targets.push_back({h.name(), *rpc::ParseEndpoint(h.admin()), lab_.viewer_token(), {}});
    }
    return cluster::LocateEverywhere(targets, id, std::chrono::seconds(2));
  }

 private Q_SLOTS:
  void initTestCase() {
    std::string why;
    if (!load::NamespacesAvailable(&why)) {
      QSKIP(qPrintable("network namespaces cannot be made here (" + QString::fromStdString(why) +
                       "): the partition drills need them"));
    }
    QVERIFY(lab_.Up(2, {"--memtable-entries", "500"}));
    QVERIFY(lab_.state().namespaces());
    QCOMPARE(lab_.state().host_size(), 3);
    QVERIFY(WaitFor([&] { return CaughtUp("replica1", 0) && CaughtUp("replica2", 0); }));
  }

  // Every host healed after each drill, also one that failed half-way: a cut left in place would
  // fail the drills after it for a reason of its own.
  void cleanup() {
    for (const lab::Host& h : lab_.state().host())
      (void)Lab({"heal", QString::fromStdString(h.name())});
  }

  void replicaCutSilentlyFromItsUpdater() {
    std::unique_ptr<rpc::Client> writer = ClientOf({"updater"});
    std::unique_ptr<rpc::Client> readers = ClientOf({"replica1", "replica2"});
    QVERIFY(writer && readers);
    uint64_t first = 0;
    QVERIFY(Put(*writer, 7, "before the cut", &first).ok());
    QVERIFY(WaitFor([&] { return CaughtUp("replica1", first) && CaughtUp("replica2", first); }));

    // The updater and replica1 cannot reach each other; the machine and replica2 reach both.
    QCOMPARE(Lab({"cut", "updater", "--isolate"}), 0);
    QCOMPARE(Lab({"cut", "replica1", "--isolate"}), 0);
    const auto cut_at = Clock::now();
    uint64_t second = 0;
    QVERIFY(Put(*writer, 7, "after the cut", &second).ok());
    QVERIFY(WaitFor(
        [&] {
          const admin::Replication r = ReplicationAt("replica1");
          return r.state() == admin::REPLICA_DISCONNECTED && !r.lag_known();
        },
        std::chrono::duration_cast<std::chrono::milliseconds>(kDisconnectedWithin)));
    qInfo(
        "replica1 read disconnected %lld ms after the cut",
        static_cast<long long>(
            std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - cut_at).count()));
    // A read carrying the newer position: BEHIND from replica1 moves it to replica2; never the
    // older document, never a failure. Each replica may hold such a read up to a second for the
    // position to arrive (max_read_wait): the deadline leaves a loaded machine room for both.
    for (int i = 0; i < 50; ++i) {
      std::optional<std::string> doc;
      const rpc::CallResult r = Get(*readers, 7, second, &doc, std::chrono::seconds(10));
      QVERIFY2(r.status.ok(), r.status.ToString().c_str());
      QCOMPARE(doc.value_or(""), std::string("after the cut"));
    }
    const std::vector<cluster::NodeCopy> during = Copies(7);
    const cluster::CopyComparison c = cluster::CompareCopies(during);
    QCOMPARE(c.verdicts[1], cluster::CopyVerdict::kBehind);  // replica1
    QCOMPARE(c.verdicts[2], cluster::CopyVerdict::kNewest);  // replica2

    QCOMPARE(Lab({"heal", "updater"}), 0);
    QCOMPARE(Lab({"heal", "replica1"}), 0);
    QVERIFY(WaitFor([&] { return CaughtUp("replica1", second); }));
    QVERIFY(WaitFor([&] {
      const cluster::CopyComparison healed = cluster::CompareCopies(Copies(7));
      return healed.verdicts == std::vector<cluster::CopyVerdict>(3, cluster::CopyVerdict::kNewest);
    }));
  }

  void replicaCutFromEverythingLosesItsClients() {
    std::unique_ptr<rpc::Client> writer = ClientOf({"updater"});
    std::unique_ptr<rpc::Client> readers = ClientOf({"replica1", "replica2"});
    QVERIFY(writer && readers);
    QVERIFY(Put(*writer, 8, "read me", nullptr).ok());
    QVERIFY(WaitFor([&] {
      std::optional<std::string> doc;
      return Get(*readers, 8, 0, &doc).status.ok() && doc;
    }));
    ReadLoop loop(*readers, 8);
    QVERIFY(WaitFor([&] { return loop.ok() > 100; }));
    QCOMPARE(Lab({"cut", "replica2"}), 0);
    const auto cut_at = Clock::now();
    const uint64_t failed_before = loop.failed();
    // The calls go on, on replica1 alone: wait until the pool holds no replica2 connection.
    QVERIFY(WaitFor([&] {
      for (const rpc::PoolEntrySnapshot& e : readers->Snapshot().entries) {
        if (e.server == 1) return false;
      }
      return true;
    }));
    const auto moved_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - cut_at).count();
    const uint64_t ok_after_move = loop.ok();
    QVERIFY(WaitFor([&] { return loop.ok() > ok_after_move + 100; }));
    const uint64_t failed = loop.failed() - failed_before;
    qInfo("replica2 cut silently: the client's pool left it after %lld ms, %llu calls failed",
          static_cast<long long>(moved_ms), static_cast<unsigned long long>(failed));
    loop.Stop();
    QCOMPARE(Lab({"heal", "replica2"}), 0);
    QVERIFY(WaitFor([&] { return CaughtUp("replica2", 0); }));
  }

  void updaterCutFromEverything() {
    std::unique_ptr<rpc::Client> writer = ClientOf({"updater"});
    std::unique_ptr<rpc::Client> readers = ClientOf({"replica1", "replica2"});
    QVERIFY(writer && readers);
    uint64_t before = 0;
    QVERIFY(Put(*writer, 9, "before", &before).ok());
    QVERIFY(WaitFor([&] { return CaughtUp("replica1", before) && CaughtUp("replica2", before); }));
    QCOMPARE(Lab({"cut", "updater"}), 0);
    // Reads go on from the replicas.
    for (int i = 0; i < 20; ++i) {
      std::optional<std::string> doc;
      const rpc::CallResult r = Get(*readers, 9, before, &doc);
      QVERIFY2(r.status.ok(), r.status.ToString().c_str());
      QCOMPARE(doc.value_or(""), std::string("before"));
    }
    // A write fails, and says why.
    const rpc::Status refused = Put(*writer, 9, "during", nullptr);
    QVERIFY(!refused.ok());
    qInfo("a write to the cut updater: %s", refused.ToString().c_str());
    QVERIFY(refused.code() == rpc::Code::kDeadlineExceeded ||
            refused.code() == rpc::Code::kUnavailable);
    QVERIFY(WaitFor(
        [&] {
          return ReplicationAt("replica1").state() == admin::REPLICA_DISCONNECTED &&
                 ReplicationAt("replica2").state() == admin::REPLICA_DISCONNECTED;
        },
        std::chrono::duration_cast<std::chrono::milliseconds>(kDisconnectedWithin)));
    QCOMPARE(Lab({"heal", "updater"}), 0);
    uint64_t after = 0;
    QVERIFY(WaitFor([&] { return Put(*writer, 9, "after", &after).ok(); }));
    QVERIFY(WaitFor([&] { return CaughtUp("replica1", after) && CaughtUp("replica2", after); }));
  }

  void cleanupTestCase() { QVERIFY(lab_.Down()); }
};

RAILYARD_QTEST_GUILESS_MAIN(LabPartitionsTest)
#include "tst_lab_partitions.moc"
