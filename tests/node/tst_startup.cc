// SPDX-License-Identifier: Apache-2.0
// A node's start-up order, as the SRE chapter's starting state has it: the docservice listens and
// says "starting" (telemetry NODE_STARTING) while the store opens; a client connected then holds
// its connection, sends nothing, and uses it once the node serves. A replica stays starting until
// it has caught up with its updater, or until it has not reached it for a while.
#include <QTemporaryDir>
#include <QTest>
#include <asio.hpp>
#include <thread>

#include "core/node/node.h"
#include "core/rpc/client.h"
#include "tests/support/free_port.h"
#include "tests/support/qtest_main.h"
#include "tests/support/wait_until.h"

using namespace railyard;
using railyard::testing::FreePort;
using namespace std::chrono_literals;

namespace {

// Generous: a loaded machine.
bool WaitLong(const std::function<bool()>& condition) {
  return railyard::testing::WaitUntil(condition, std::chrono::seconds(30));
}

node::NodeOptions Small(const std::string& name, const QString& dir) {
  node::NodeOptions options;
  options.name = name;
  options.data_dir = dir.toStdString();
  options.io_threads = 1;
  options.worker_threads = 2;
  return options;
}

}  // namespace

class StartupTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void nodeListensAndSaysStartingWhileItsStoreOpens() {
    QTemporaryDir dir;
    node::NodeOptions options;
    options.name = "startup";
    options.data_dir = dir.path().toStdString();
    options.io_threads = 1;
    options.worker_threads = 2;
    std::unique_ptr<rpc::Client> client;
    admin::NodeState state_while_starting = admin::NodeState();
    bool held_while_starting = false;
    size_t pooled_while_starting = 1;
    options.on_starting = [&](node::Node& starting) {
      state_while_starting = starting.Snapshot().state();
      rpc::ClientOptions client_options;
      client_options.servers = {starting.endpoint()};
      client_options.pool_size = 2;
      client = std::make_unique<rpc::Client>(client_options);
      if (!client->Start().ok()) return;
      held_while_starting = WaitLong([&] { return !starting.server().SlotSnapshot().empty(); });
      pooled_while_starting = client->Snapshot().entries.size();
    };
    std::unique_ptr<node::Node> node;
    const rpc::Status opened = node::Node::Open(options, &node);
    QVERIFY2(opened.ok(), opened.ToString().c_str());
    QCOMPARE(state_while_starting, admin::NODE_STARTING);
    QVERIFY(held_while_starting);
    QCOMPARE(pooled_while_starting, size_t{0});

    QCOMPARE(node->Snapshot().state(), admin::NODE_SERVING);
    QVERIFY(client->WaitForPool(1, 10s));
    const rpc::CallResult result = client->Call("doc.Get", "");
    QCOMPARE(result.attempts, 1);
    QVERIFY2(result.status.code() != rpc::Code::kUnavailable, result.status.ToString().c_str());
    QCOMPARE(node->server().counters().requests, uint64_t{1});
    client->Stop();
    node->Shutdown(0ms);
  }

  void aReplicaServesOnlyOnceItHasCaughtUp() {
    QTemporaryDir updater_dir, replica_dir;
    node::NodeOptions updater_options = Small("updater", updater_dir.path());
    updater_options.replication.tokens = {"repl-token"};
    std::unique_ptr<node::Node> updater;
    QVERIFY(node::Node::Open(updater_options, &updater).ok());
    // Several fetches' worth, so the replica is some time behind when it starts.
    const std::string doc(200, 'd');
    for (uint64_t id = 1; id <= 30000; ++id) QVERIFY(updater->store().Put(id, doc).ok());

    node::NodeOptions replica_options = Small("replica", replica_dir.path());
    replica_options.replication.replica = true;
    replica_options.replication.follow = updater->endpoint().ToString();
    replica_options.replication.tokens = {"repl-token"};
    std::unique_ptr<node::Node> replica;
    QVERIFY(node::Node::Open(replica_options, &replica).ok());
    // The first time it says serving, it is at the updater's head with every document.
    admin::Telemetry seen;
    QVERIFY(WaitLong([&] {
      seen = replica->Snapshot();
      return seen.state() == admin::NODE_SERVING;
    }));
    QCOMPARE(seen.replication().state(), admin::REPLICA_TAILING);
    // Indexed up to the updater's head, not only received.
    QVERIFY(seen.replication().head_position() > 0);
    QVERIFY(seen.replication().applied_position() >= seen.replication().head_position());
    replica->Shutdown(0ms);
    updater->Shutdown(0ms);
  }

  void aReplicaThatCannotReachItsUpdaterServesWhatItHasAfterALimit() {
    QTemporaryDir dir;
    node::NodeOptions options = Small("lonely", dir.path());
    options.replication.replica = true;
    options.replication.follow = "127.0.0.1:" + std::to_string(FreePort());
    // Long enough that the node surely still says starting when first asked, on a loaded machine.
    options.replication.serve_unreachable_after = 3s;
    std::unique_ptr<node::Node> replica;
    QVERIFY(node::Node::Open(options, &replica).ok());
    QCOMPARE(replica->Snapshot().state(), admin::NODE_STARTING);
    QVERIFY(WaitLong([&] { return replica->Snapshot().state() == admin::NODE_SERVING; }));
    QCOMPARE(replica->Snapshot().replication().state(), admin::REPLICA_DISCONNECTED);
    replica->Shutdown(0ms);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(StartupTest)
#include "tst_startup.moc"
