// SPDX-License-Identifier: Apache-2.0
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
#include "tests/support/qtest_main.h"

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

constexpr int kCalls = 24;  // With one server.

}  // namespace

class FlowControlTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Server 0 holds every request; server 1 answers at once. Another client holds server 1's
  // slots 0 to 19, so this client's default pool of 32 ranks at least 20 connections to server 0
  // (slots 0 to 19) above any to server 1. Without flow control the first 20 calls would all wait
  // on server 0. With it, 16 do; each call after them goes to server 1 if the pool has a
  // connection there (ties on equal slots split the rest of the pool at random), else fails fast.
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
      const std::vector<uint32_t> slots = PooledSlots(client, 0);
      return client.Snapshot().entries.size() == defaults.pool_size && slots.size() >= 20 &&
             slots[19] == 19;  // Slots 0 to 19 of server 0.
    }));
    const bool quick_pooled = !PooledSlots(client, 1).empty();

    Calls calls;
    calls.Start(client, 16);
    QVERIFY(WaitUntil([&] { return held->entered->load() == 16; }));
    // One at a time, so one connection to server 1 is enough for all of them.
    for (int i = 0; i < 8; ++i) {
      calls.Start(client, 1);
      QVERIFY(WaitUntil([&] { return calls.pending.load() == 16 || held->entered->load() > 16; }));
      QCOMPARE(held->entered->load(), uint64_t{16});  // Not sent to the server at its limit.
    }
    QCOMPARE(held->entered->load(), uint64_t{16});
    const auto state = client.Snapshot().policy_state;
    QVERIFY(state && !state->backends.empty());
    QCOMPARE(state->backends[0].backend, 0u);
    QCOMPARE(state->backends[0].limit, 16u);
    QCOMPARE(state->backends[0].active, 16u);
    qInfo("after 16 held calls: %llu sent to server 1, %d refused",
          static_cast<unsigned long long>(quick->entered->load()), calls.failed.load());
    QCOMPARE(quick->entered->load() + static_cast<uint64_t>(calls.failed.load()), uint64_t{8});
    if (quick_pooled) QCOMPARE(quick->entered->load(), uint64_t{8});

    held->gate->Open();
    QVERIFY(WaitUntil([&] { return calls.pending.load() == 0; }));
    QCOMPARE(held->entered->load(), uint64_t{16});
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

RAILYARD_QTEST_GUILESS_MAIN(FlowControlTest)
#include "tst_flow_control.moc"
