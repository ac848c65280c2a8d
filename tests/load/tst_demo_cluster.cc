// SPDX-License-Identifier: Apache-2.0
// The demo cluster runs real railyard-node processes: they come up on OS-chosen loopback ports,
// answer over their admin services, serve the load clients, and are gone (with their folder)
// after Stop. The first is the updater and the others its replicas (with a replication token of
// their own), which the cluster file names; the clients write to the updater only and read from
// every node. A missing or broken node binary is a clear error that leaves nothing behind.
#include <signal.h>
#include <sys/stat.h>

#include <QDir>
#include <QTest>
#include <filesystem>

#include "core/cluster/admin_client.h"
#include "core/cluster/cluster_file.h"
#include "core/load/demo_cluster.h"
#include "core/rpc/client.h"
#include "railyard/docservice.boxcar.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

using namespace railyard;

namespace {

bool Alive(pid_t pid) { return pid > 0 && ::kill(pid, 0) == 0; }

uint64_t Handled(const admin::Telemetry& t, const std::string& method) {
  for (const admin::MethodStats& m : t.throughput().methods()) {
    if (m.method() == method) return m.requests();
  }
  return 0;
}

// The built railyard-node, with the operator token the tests use.
load::DemoClusterOptions TestOptions(size_t nodes, size_t clients) {
  load::DemoClusterOptions options;
  options.nodes = nodes;
  options.clients = clients;
  options.node_binary = BuiltProgram("railyard-node");
  options.operator_tokens = {"demo-operator"};
  return options;
}

admin::Telemetry TelemetryOf(const load::DemoNode& n) {
  cluster::AdminClient admin(n.admin, "demo-operator", "demo-test");
  admin::Telemetry telemetry;
  if (admin.Connect(std::chrono::seconds(5)).ok()) admin.Telemetry(&telemetry);
  return telemetry;
}

}  // namespace

class DemoClusterTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void nodesAreProcessesThatServeAndStop() {
    const load::DemoClusterOptions options = TestOptions(2, 1);
    load::DemoCluster demo;
    const rpc::Status started = demo.Start(options);
    QVERIFY2(started.ok(), started.ToString().c_str());
    QCOMPARE(demo.nodes().size(), size_t{2});
    const std::string root = demo.root();
    std::vector<pid_t> pids;
    for (const load::DemoNode& n : demo.nodes()) {
      QVERIFY(Alive(n.pid));
      QVERIFY(n.pid != ::getpid());
      QCOMPARE(n.admin.host, std::string("127.0.0.1"));
      cluster::AdminClient admin(n.admin, "demo-operator", "demo-test");
      QVERIFY(admin.Connect(std::chrono::seconds(5)).ok());
      admin::Telemetry telemetry;
      QVERIFY(admin.Telemetry(&telemetry).ok());
      QCOMPARE(telemetry.node(), n.name);
      pids.push_back(n.pid);
    }
    // The load client reaches the nodes.
    QTRY_VERIFY_WITH_TIMEOUT(demo.clients()[0]->Result().ok > 50, 30000);
    QCOMPARE(demo.nodes()[0].role, std::string("updater"));
    QCOMPARE(demo.nodes()[1].role, std::string("replica"));
    const load::LoadResult result = demo.Stop();
    QVERIFY2(result.ok > 50, "Stop lost the clients' counts");  // At least what was seen running.
    for (pid_t pid : pids) QVERIFY2(!Alive(pid), "a node outlived Stop");
    QVERIFY(!std::filesystem::exists(root));
    QVERIFY(demo.nodes().empty());
  }

  // C16: a demo node killed by hand is reaped (not left <defunct>) and can be started again where
  // it was, with its data, and serving, while a running one is not started twice.
  void aKilledNodeIsReapedAndRestartsWhereItWas() {
    const load::DemoClusterOptions options = TestOptions(2, 0);
    load::DemoCluster demo;
    const rpc::Status started = demo.Start(options);
    QVERIFY2(started.ok(), started.ToString().c_str());
    const load::DemoNode before = demo.nodes()[1];
    QVERIFY(demo.NodeRunning(1));
    const rpc::Status twice = demo.RestartNode(1);
    QCOMPARE(twice.code(), rpc::Code::kFailedPrecondition);
    QVERIFY2(twice.message().find("still running") != std::string::npos, twice.ToString().c_str());
    QCOMPARE(demo.RestartNode(2).code(), rpc::Code::kNotFound);

    QCOMPARE(::kill(before.pid, SIGKILL), 0);
    // Reaped: no /proc entry left, not even a zombie's.
    QTRY_VERIFY_WITH_TIMEOUT(!demo.NodeRunning(1), 10000);
    QVERIFY2(!std::filesystem::exists("/proc/" + std::to_string(before.pid)),
             "the killed node is left a zombie");

    const rpc::Status restarted = demo.RestartNode(1);
    QVERIFY2(restarted.ok(), restarted.ToString().c_str());
    const load::DemoNode& after = demo.nodes()[1];
    QVERIFY(after.pid != before.pid);
    QVERIFY(Alive(after.pid));
    QCOMPARE(after.admin.ToString(), before.admin.ToString());
    QCOMPARE(after.service.ToString(), before.service.ToString());
    const admin::Telemetry t = TelemetryOf(after);
    QCOMPARE(t.node(), before.name);
    QCOMPARE(t.replication().role(), admin::DOCSTORE_REPLICA);
    demo.Stop();
    QVERIFY(!Alive(after.pid));
  }

  void oneUpdaterWithReplicasThatClientsReadFrom() {
    load::DemoClusterOptions options = TestOptions(3, 2);
    options.keys = 500;  // Few keys, so reads soon find documents written.
    load::DemoCluster demo;
    const rpc::Status started = demo.Start(options);
    QVERIFY2(started.ok(), started.ToString().c_str());
    QCOMPARE(demo.nodes().size(), size_t{3});
    const std::string updater = demo.nodes()[0].service.ToString();
    // The roles, as the nodes themselves report them.
    for (size_t i = 0; i < demo.nodes().size(); ++i) {
      const load::DemoNode& n = demo.nodes()[i];
      QCOMPARE(n.role, std::string(i == 0 ? "updater" : "replica"));
      const admin::Telemetry t = TelemetryOf(n);
      QCOMPARE(t.replication().role(), i == 0 ? admin::DOCSTORE_UPDATER : admin::DOCSTORE_REPLICA);
      if (i > 0) QCOMPARE(t.replication().updater(), updater);
    }
    // The replication token is the cluster's own secret: a 0600 file in its folder.
    struct stat token {};
    QCOMPARE(::stat((std::filesystem::path(demo.root()) / "replication-token").c_str(), &token), 0);
    QCOMPARE(token.st_mode & 0777, 0600u);
    QVERIFY(token.st_size > 16);
    // So is the docservices' writer token, which the demo's clients present and a stranger lacks.
    QCOMPARE(::stat(demo.DataTokenFile().c_str(), &token), 0);
    QCOMPARE(token.st_mode & 0777, 0600u);
    {
      rpc::ClientOptions stranger;
      stranger.servers = {demo.nodes()[0].service};
      stranger.pool_size = 1;
      rpc::Client client(stranger);
      QVERIFY(client.Start().ok());
      QVERIFY(client.WaitForPool(1, std::chrono::seconds(20)));
      doc::GetRequest get;
      get.set_id(1);
      doc::GetResponse response;
      const rpc::CallResult refused = doc::DocService::Stub(client).Get(get, &response);
      QCOMPARE(refused.status.code(), rpc::Code::kUnauthenticated);
    }
    // The cluster file names every node with its role.
    config::Cluster file;
    const rpc::Status loaded = cluster::LoadClusterFile(demo.ClusterFile(), &file);
    QVERIFY2(loaded.ok(), loaded.ToString().c_str());
    QCOMPARE(file.node_size(), 3);
    for (int i = 0; i < file.node_size(); ++i) {
      const load::DemoNode& n = demo.nodes()[static_cast<size_t>(i)];
      QCOMPARE(file.node(i).name(), n.name);
      QCOMPARE(file.node(i).service(), n.service.ToString());
      QCOMPARE(file.node(i).admin(), n.admin.ToString());
      QCOMPARE(file.node(i).role(), n.role);
    }
    // Writes reach the updater only; every node serves reads, and the replicas' reads find
    // documents (they follow the updater), so none fails.
    QTRY_VERIFY_WITH_TIMEOUT(Handled(TelemetryOf(demo.nodes()[0]), "doc.Put") > 50, 30000);
    for (size_t i = 1; i < demo.nodes().size(); ++i) {
      QTRY_VERIFY_WITH_TIMEOUT(Handled(TelemetryOf(demo.nodes()[i]), "doc.Get") > 50, 30000);
      QCOMPARE(Handled(TelemetryOf(demo.nodes()[i]), "doc.Put"), uint64_t{0});
      const std::string address = demo.nodes()[i].service.ToString();
      QTRY_VERIFY_WITH_TIMEOUT(demo.clients()[0]->Result().by_node[address].reads > 50, 30000);
    }
    QTRY_VERIFY_WITH_TIMEOUT(demo.clients()[0]->Result().reads_with_position > 0, 30000);
    const load::LoadResult result = demo.Stop();
    QVERIFY(result.ok > 100);
    std::string errors;
    for (const auto& [code, count] : result.errors_by_code) {
      errors += code + ": " + std::to_string(count) + " ";
    }
    QVERIFY2(result.errors == 0, errors.c_str());
    QVERIFY(result.by_node.count(updater) && result.by_node.at(updater).writes > 0);
  }

  void aMissingBinaryIsAClearError() {
    load::DemoClusterOptions options;
    options.node_binary = "/nonexistent/railyard-node";
    load::DemoCluster demo;
    const rpc::Status s = demo.Start(options);
    QVERIFY(!s.ok());
    QVERIFY2(s.message().find("node0") != std::string::npos, s.message().c_str());
    // The exec's own error, at once, rather than a wait for a node that never ran.
    QVERIFY2(
        s.message().find("executing /nonexistent/railyard-node: No such file") != std::string::npos,
        s.message().c_str());
    QCOMPARE(s.code(), rpc::Code::kNotFound);
    QVERIFY(demo.nodes().empty());
    const std::string marker = "kept for the logs: ";
    if (const size_t at = s.message().find(marker); at != std::string::npos) {
      std::filesystem::remove_all(s.message().substr(at + marker.size()));
    }

    qputenv("RAILYARD_NODE_BINARY", "/nonexistent/railyard-node");
    options.node_binary.clear();
    const rpc::Status from_env = demo.Start(options);
    qunsetenv("RAILYARD_NODE_BINARY");
    QCOMPARE(from_env.code(), rpc::Code::kNotFound);
    QVERIFY2(from_env.message().find("RAILYARD_NODE_BINARY") != std::string::npos,
             from_env.message().c_str());
  }

  void aNodeThatDoesNotComeUpIsStoppedAndQuoted() {
    // A program that refuses its flags and exits without the LISTEN line stands for a node that
    // fails at start (a bad config, a port in use).
    load::DemoClusterOptions options;
    options.node_binary = "/bin/cat";  // "cat: unrecognized option '--config'"
    load::DemoCluster demo;
    const rpc::Status s = demo.Start(options);
    QVERIFY(!s.ok());
    QVERIFY2(s.message().find("did not come up") != std::string::npos, s.message().c_str());
    // The error quotes the end of the node's log, so the operator sees why.
    QVERIFY2(s.message().find("unrecognized option") != std::string::npos, s.message().c_str());
    QVERIFY(demo.nodes().empty());
    // The folder with the node's whole log is kept and named; the test removes it.
    const std::string marker = "kept for the logs: ";
    const size_t at = s.message().find(marker);
    QVERIFY2(at != std::string::npos, s.message().c_str());
    const std::filesystem::path kept = s.message().substr(at + marker.size());
    QVERIFY(std::filesystem::exists(kept / "node0" / "node.log"));
    std::filesystem::remove_all(kept);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(DemoClusterTest)
#include "tst_demo_cluster.moc"
