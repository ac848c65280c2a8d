// Flow control with the client's defaults, on real servers: a server whose requests pile up gets
// no more than the default policy's per-backend limit (half the pool: 16 of the default 32) from
// one client, and the rest go to the others ("clients will avoid that backend, and the workload
// spreads organically among the other backend tasks"). A client of one server, with nowhere else
// to send, may use its whole pool.
#include <QTest>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "tests/rpc/rpc_test_support.h"

using namespace railyard::rpc;
using namespace railyard::rpc::testing;

namespace {

constexpr char kGateMethod[] = "test.Gate";

// Holds every request it receives until Open(); `entered` counts them. Closes the gate when it
// goes, so no handler outlives it.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  void Open() {
    {
      std::lock_guard lock(mu);
      open = true;
    }
    cv.notify_all();
  }
  void Wait() {
    std::unique_lock lock(mu);
    cv.wait(lock, [this] { return open; });
  }
};

// A server answering kGateMethod: held at `gate` if one is given, else at once.
struct GateServer {
  std::unique_ptr<Server> server;
  std::shared_ptr<Gate> gate;
  std::shared_ptr<std::atomic<uint64_t>> entered = std::make_shared<std::atomic<uint64_t>>(0);
  ~GateServer() {
    if (gate) gate->Open();
  }
};

std::unique_ptr<GateServer> StartGateServer(const std::string& name, bool held) {
  auto result = std::make_unique<GateServer>();
  if (held) result->gate = std::make_shared<Gate>();
  ServerOptions options;
  options.name = name;
  options.io_threads = 1;
  options.worker_threads = 64;  // Every held request on its own worker.
  result->server = std::make_unique<Server>(options);
  result->server->RegisterHandler(kGateMethod, [gate = result->gate, entered = result->entered](
                                                   const CallContext&, std::string_view) {
    entered->fetch_add(1);
    if (gate) gate->Wait();
    return Reply{Status::Ok(), "ok"};
  });
  if (!result->server->Start().ok()) qFatal("server start");
  return result;
}

// Calls in flight from this test, each counted off as its callback runs.
struct Calls {
  std::atomic<int> pending{0};
  std::atomic<int> failed{0};
  void Start(Client& client, int count) {
    for (int i = 0; i < count; ++i) {
      pending.fetch_add(1);
      client.AsyncCall(kGateMethod, "x", [this](CallResult&& result) {
        if (!result.status.ok()) failed.fetch_add(1);
        pending.fetch_sub(1);
      });
    }
  }
};

constexpr int kCalls = 24;

}  // namespace

class FlowControlTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Server 0 holds every request; server 1 answers at once. Another client holds server 1's
  // slots 0 to 19, so this client's default pool of 32 ranks at least 20 connections to server 0
  // first: without flow control all 24 calls would wait there. With it, 16 do and 8 go to server 1.
  void limitBindsWithTheDefaults() {
    auto held = StartGateServer("held", true);
    auto quick = StartGateServer("quick", false);
    std::vector<std::unique_ptr<RawConnection>> others;
    for (int i = 0; i < 20; ++i) {
      others.push_back(std::make_unique<RawConnection>(quick->server->port()));
      QVERIFY(others.back()->Handshake(1000 + i).has_value());
    }
    const ClientOptions defaults;
    QCOMPARE(defaults.pool_size, size_t{32});
    ClientOptions options = FastClientOptions({held->server->endpoint(), quick->server->endpoint()},
                                              defaults.pool_size);
    QVERIFY(!options.balance && !options.policy);  // The default policy.
    Client client(options);
    QVERIFY(client.Start().ok());
    QVERIFY(WaitUntil([&] {
      return client.Snapshot().entries.size() == defaults.pool_size &&
             PooledSlots(client, 0).size() >= 20;
    }));

    Calls calls;
    calls.Start(client, kCalls);
    QVERIFY(WaitUntil([&] { return held->entered->load() + quick->entered->load() == kCalls; }));
    QCOMPARE(held->entered->load(), uint64_t{16});
    QCOMPARE(quick->entered->load(), uint64_t{kCalls - 16});
    const auto state = client.Snapshot().policy_state;
    QVERIFY(state && !state->backends.empty());
    QCOMPARE(state->backends[0].backend, 0u);
    QCOMPARE(state->backends[0].limit, 16u);
    QCOMPARE(state->backends[0].active, 16u);

    held->gate->Open();
    QVERIFY(WaitUntil([&] { return calls.pending.load() == 0; }));
    QCOMPARE(calls.failed.load(), 0);
  }

  // One server: the limit is the pool, so every call is sent even while all of them wait.
  void oneServerClientUsesItsWholePool() {
    auto held = StartGateServer("held", true);
    const ClientOptions defaults;
    Client client(FastClientOptions({held->server->endpoint()}, defaults.pool_size));
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(defaults.pool_size, std::chrono::seconds(5)));

    Calls calls;
    calls.Start(client, kCalls);
    QVERIFY(WaitUntil([&] { return held->entered->load() == kCalls; }));
    const auto state = client.Snapshot().policy_state;
    QVERIFY(state && !state->backends.empty());
    QCOMPARE(state->backends[0].limit, static_cast<uint32_t>(defaults.pool_size));
    QCOMPARE(client.Snapshot().counters.rejections, uint64_t{0});

    held->gate->Open();
    QVERIFY(WaitUntil([&] { return calls.pending.load() == 0; }));
    QCOMPARE(calls.failed.load(), 0);
  }
};

QTEST_GUILESS_MAIN(FlowControlTest)
#include "tst_flow_control.moc"
