// The demo cluster runs real railyard-node processes: they come up on OS-chosen loopback ports,
// answer over their admin services, serve the load clients, and are gone (with their folder)
// after Stop. A missing or broken node binary is a clear error that leaves nothing behind.
#include <signal.h>

#include <QDir>
#include <QTest>
#include <filesystem>

#include "core/cluster/admin_client.h"
#include "core/load/demo_cluster.h"

using namespace railyard;

namespace {

bool Alive(pid_t pid) { return pid > 0 && ::kill(pid, 0) == 0; }

}  // namespace

class DemoClusterTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void nodesAreProcessesThatServeAndStop() {
    load::DemoClusterOptions options;
    options.nodes = 2;
    options.clients = 1;
    options.node_binary = RAILYARD_NODE;
    options.operator_tokens = {"demo-operator"};
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
    QTRY_VERIFY_WITH_TIMEOUT(demo.clients()[0]->Result().ok > 50, 10000);
    const load::LoadResult result = demo.Stop();
    QVERIFY2(result.ok > 50, "Stop lost the clients' counts");  // At least what was seen running.
    for (pid_t pid : pids) QVERIFY2(!Alive(pid), "a node outlived Stop");
    QVERIFY(!std::filesystem::exists(root));
    QVERIFY(demo.nodes().empty());
  }

  void aMissingBinaryIsAClearError() {
    load::DemoClusterOptions options;
    options.node_binary = "/nonexistent/railyard-node";
    load::DemoCluster demo;
    const rpc::Status s = demo.Start(options);
    QVERIFY(!s.ok());
    QVERIFY2(s.message().find("node0") != std::string::npos, s.message().c_str());
    QVERIFY2(s.message().find("did not come up") != std::string::npos, s.message().c_str());
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

QTEST_GUILESS_MAIN(DemoClusterTest)
#include "tst_demo_cluster.moc"
