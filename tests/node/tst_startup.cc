// A node's start-up order, as the SRE chapter's starting state has it: the docservice listens and
// says "starting" (telemetry NODE_STARTING) while the store opens; a client connected then holds
// its connection, sends nothing, and uses it once the node serves.
#include <QTemporaryDir>
#include <QTest>
#include <thread>

#include "core/node/node.h"
#include "core/rpc/client.h"

using namespace railyard;
using namespace std::chrono_literals;

namespace {

bool WaitUntil(const std::function<bool()>& condition) {
  for (int i = 0; i < 5000; ++i) {  // At most about 10 s.
    if (condition()) return true;
    std::this_thread::sleep_for(2ms);
  }
  return condition();
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
      held_while_starting = WaitUntil([&] { return !starting.server().SlotSnapshot().empty(); });
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
};

QTEST_GUILESS_MAIN(StartupTest)
#include "tst_startup.moc"
