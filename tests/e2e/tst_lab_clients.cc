// SPDX-License-Identifier: Apache-2.0
// Load clients as lab hosts (`railyardctl lab up --clients`): each a `railyardctl load` of its
// own (in a network namespace as root, else on a loopback address), writing to the updater and
// reading from its deterministic subset of the replicas, its telemetry at the admin address the
// cluster file gives it (role "client"); killed, started again and taken down by the lab like a
// node; and `railyardctl load --cluster` over the same file leaves the clients out.
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTest>
#include <algorithm>
#include <map>
#include <set>

#include "core/cluster/cluster_file.h"
#include "core/load/lab.h"
#include "core/load/lab_network.h"
#include "railyard/config.pb.h"
#include "tests/e2e/lab_support.h"
#include "tests/e2e/replication_support.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using namespace railyard;
using namespace railyard::e2e;

class LabClientsTest : public QObject {
  Q_OBJECT

 private:
  // Two clients a round (4 / 2): each replica in exactly two clients' subsets.
  static constexpr int kReplicas = 4;
  static constexpr int kClients = 4;
  static constexpr int kSubset = 2;
  LabFixture lab_;

  // The replicas a client's read pool is given (its deterministic subset), by host name.
  std::set<std::string> SubsetOf(const admin::Telemetry& t) const {
    std::set<std::string> names;
    if (t.pools_size() == 0) return names;
    const admin::ClientPool& pool = t.pools(0);
    for (uint32_t index : pool.subset()) {
      if (index >= static_cast<uint32_t>(pool.servers_size())) continue;
      for (const lab::Host& h : lab_.state().host()) {
        if (h.service() == pool.servers(static_cast<int>(index))) names.insert(h.name());
      }
    }
    return names;
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(lab_.Up(
        kReplicas, {"--clients", QString::number(kClients), "--client-subset",
                    QString::number(kSubset), "--client-rate", "50", "--memtable-entries", "500"}));
  }

  void theClusterFileListsEachClientByItsAdminAddress() {
    config::Cluster file;
    QVERIFY(cluster::LoadClusterFile(lab_.ClusterFile().toStdString(), &file).ok());
    int clients = 0;
    std::set<std::string> addresses;
    for (const config::ClusterMember& m : file.node()) {
      QVERIFY2(addresses.insert(m.admin()).second, m.admin().c_str());
      if (m.role() != "client") continue;
      ++clients;
      QVERIFY2(m.service().empty(), m.name().c_str());
      const lab::Host& h = lab_.Host(m.name());
      QCOMPARE(m.admin(), h.admin());
      QCOMPARE(h.admin().substr(0, h.admin().rfind(':')), h.address());
      if (lab_.state().namespaces()) QVERIFY(!h.netns().empty());
    }
    QCOMPARE(clients, kClients);
  }

  void everyClientReadsItsSubsetAndWritesToTheUpdater() {
    std::map<std::string, std::set<std::string>> clients_of;  // Replica -> clients reading it.
    for (int c = 1; c <= kClients; ++c) {
      const std::string name = "client" + std::to_string(c);
      admin::Telemetry t;
      // Answering, and its calls answered (requests counted on both of its pools).
      QVERIFY2(WaitFor([&] {
                 t = lab_.TelemetryAt(name);
                 return t.pools_size() == 1 && t.pools(0).counters().requests() >= 20;
               }),
               name.c_str());
      QCOMPARE(t.role(), admin::ROLE_CLIENT);
      QCOMPARE(t.node(), name);
      const admin::ClientPool& pool = t.pools(0);
      QCOMPARE(pool.subset_mode(), std::string("deterministic"));
      const std::set<std::string> subset = SubsetOf(t);
      QCOMPARE(static_cast<int>(subset.size()), kSubset);
      for (const std::string& replica : subset) {
        QVERIFY2(replica.starts_with("replica"), replica.c_str());
        clients_of[replica].insert(name);
      }
      // Its connections: the replicas of its subset and the updater (writes), no other.
      bool to_updater = false;
      for (const admin::PoolEntry& e : pool.entries()) {
        const bool updater = e.server() == lab_.Host("updater").service();
        to_updater = to_updater || updater;
        bool in_subset = false;
        for (const std::string& replica : subset) {
          in_subset = in_subset || e.server() == lab_.Host(replica).service();
        }
        QVERIFY2(updater || in_subset, e.server().c_str());
      }
      QVERIFY2(to_updater, name.c_str());
    }
    // Consecutive indexes spread evenly over every replica.
    QCOMPARE(static_cast<int>(clients_of.size()), kReplicas);
    for (const auto& [replica, clients] : clients_of) {
      QVERIFY2(static_cast<int>(clients.size()) == kClients * kSubset / kReplicas, replica.c_str());
    }
    // Each replica holds a slot for each client whose subset holds it, and the replicas serve the
    // reads. Not each replica: a Boxcar client sends a call on its idle connection with the
    // lowest slot, so at this rate a replica holding only the higher slot of both its readers
    // serves none of their reads, by design (the load goes where slots are low).
    for (const auto& [replica, clients] : clients_of) {
      QVERIFY2(WaitFor([&, name = replica, want = clients] {
                 const admin::Telemetry t = lab_.TelemetryAt(name);
                 std::set<std::string> held;
                 for (const admin::SlotEntry& e : t.slots()) {
                   held.insert(e.client_name());
                 }
                 return std::includes(held.begin(), held.end(), want.begin(), want.end());
               }),
               replica.c_str());
    }
    QVERIFY(WaitFor([&] {
      double served = 0;
      for (const auto& [replica, clients] : clients_of) {
        served += lab_.TelemetryAt(replica).throughput().requests_per_s();
      }
      return served > 0;
    }));
  }

  void aKilledClientStartsAgainOnItsAddress() {
    const lab::Host before = lab_.Host("client2");
    QString out;
    QCOMPARE(lab_.Lab({"kill", "client2"}, &out), 0);
    QVERIFY(!load::ProcessRuns(before.pid(), load::LabHostProgram(before)));
    QVERIFY(lab_.TelemetryAt("client2").node().empty());
    QCOMPARE(lab_.Lab({"status"}, &out), 0);
    QVERIFY2(out.contains(QRegularExpression("client2 +client +ended")), qPrintable(out));
    QCOMPARE(lab_.Lab({"start", "client2"}, &out), 0);
    QVERIFY(lab_.Reload());
    const lab::Host& after = lab_.Host("client2");
    QVERIFY(after.pid() != before.pid());
    QCOMPARE(after.admin(), before.admin());
    QVERIFY(WaitFor([&] {
      const admin::Telemetry t = lab_.TelemetryAt("client2");
      return t.node() == "client2" && t.pools_size() == 1 && t.pools(0).counters().requests() > 0;
    }));
  }

  void loadOverTheClusterFileLeavesTheClientsOut() {
    QString out;
    const int rc = RunCtl(railyard::testing::BuiltProgram("railyardctl"),
                          {"load", "--cluster", lab_.ClusterFile(), "--token-file",
                           QString::fromStdString(lab_.dir() + "/viewer-token"), "--duration-s",
                           "1", "--rate", "100", "--json"},
                          &out);
    QVERIFY2(rc == 0, qPrintable(out));
    QVERIFY2(out.contains("\"ok\""), qPrintable(out));
  }

  // `lab down` keeps each host's folder and log, and a load client's log is appended to: a lab
  // brought up again in that folder must list its client where it listens now, not where the lab
  // before it did (that lab's subnet, or on loopback its port: an address no longer the lab's,
  // which the console would poll instead). On loopback the OS picks each lab's client port.
  void aLabUpAgainInItsFolderListsItsClientWhereItListensNow() {
    LabFixture lab;
    const QStringList flags{"--loopback", "--clients",          "1",  "--client-rate",
                            "20",         "--memtable-entries", "500"};
    QVERIFY(lab.Up(1, flags));
    auto down = qScopeGuard([&] { (void)lab.Down(); });
    const std::string first = lab.Host("client1").admin();
    QCOMPARE(lab.TelemetryAt("client1").node(), std::string("client1"));
    QVERIFY(lab.Down());
    QVERIFY(lab.Up(1, flags));
    const std::string again = lab.Host("client1").admin();
    config::Cluster file;
    QVERIFY(cluster::LoadClusterFile(lab.ClusterFile().toStdString(), &file).ok());
    std::string listed;
    for (const config::ClusterMember& m : file.node()) {
      if (m.name() == "client1") listed = m.admin();
    }
    QCOMPARE(listed, again);
    // The listed address is the running client's: it answers there, as client1.
    QVERIFY2(WaitFor([&] { return lab.TelemetryAt("client1").node() == "client1"; }),
             (first + " then " + again).c_str());
  }

  void cleanupTestCase() {
    std::vector<lab::Host> clients;
    for (const lab::Host& h : lab_.state().host()) {
      if (h.role() == "client") clients.push_back(h);
    }
    QVERIFY(lab_.Down());
    for (const lab::Host& h : clients) {
      QVERIFY2(!load::ProcessRuns(h.pid(), load::LabHostProgram(h)), h.name().c_str());
    }
  }
};

RAILYARD_QTEST_GUILESS_MAIN(LabClientsTest)
#include "tst_lab_clients.moc"
