// SPDX-License-Identifier: Apache-2.0
// A client's own figures (PoolSnapshot::throughput): rates of calls, failures, POOL_EXHAUSTED
// rejections and retries, and client-seen latency, under real calls to a real server on
// 127.0.0.1. Rates decay but never reach zero within a test, so "> 0" holds however slow the
// machine is; latency is checked against how long the test held a call, which it can only exceed.
#include <QTest>
#include <future>
#include <thread>

#include "tests/rpc/rpc_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::rpc;
using namespace railyard::rpc::testing;
using std::chrono::milliseconds;

namespace {

constexpr char kHeld[] = "t.Held";                // Answers once the test releases it.
constexpr char kUnavailable[] = "t.Unavailable";  // Always a retryable failure.
constexpr char kMissing[] = "t.Missing";          // NOT_FOUND: an answer, not a failure.
constexpr char kBehind[] = "t.Behind";            // BEHIND everywhere: an answer too.
constexpr milliseconds kHeldAtLeast{20};

// Holds every kHeld call until Release(), counting those inside.
struct HeldCalls {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> inside{0};
};

std::unique_ptr<Server> StartServer(const std::shared_ptr<HeldCalls>& gate) {
  ServerOptions options;
  options.name = "figures";
  options.io_threads = 1;
  auto server = std::make_unique<Server>(options);
  server->RegisterHandler(kHeld, [gate](const CallContext&, std::string_view payload) {
    gate->inside.fetch_add(1);
    gate->released.wait();
    return Reply{Status::Ok(), std::string(payload)};
  });
  server->RegisterHandler(kUnavailable, [](const CallContext&, std::string_view) {
    return Reply{{Code::kUnavailable, "try elsewhere"}, {}};
  });
  server->RegisterHandler(kMissing, [](const CallContext&, std::string_view) {
    return Reply{{Code::kNotFound, "no such document"}, {}};
  });
  server->RegisterHandler(kBehind, [](const CallContext&, std::string_view) {
    return Reply{{Code::kBehind, "not applied yet"}, {}};
  });
  if (!server->Start().ok()) return nullptr;
  return server;
}

}  // namespace

class ClientFiguresTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void aFreshClientReportsNothing() {
    Client client(FastClientOptions({{"127.0.0.1", 1}}, 1));
    const ClientThroughput t = client.Snapshot().throughput;
    QCOMPARE(t.requests_per_s, 0.0);
    QCOMPARE(t.rejections_per_s, 0.0);
    QCOMPARE(t.p99_us, 0.0);
  }

  // A pool of one connection, held by one call, and more callers: each is refused at once with
  // POOL_EXHAUSTED, and the client says so.
  void poolExhaustionShowsAsRejections() {
    auto gate = std::make_shared<HeldCalls>();
    std::unique_ptr<Server> server = StartServer(gate);
    QVERIFY(server);
    Client client(FastClientOptions({{"127.0.0.1", server->port()}}, 1));
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(1, std::chrono::seconds(10)));

    std::future<CallResult> held =
        std::async(std::launch::async, [&client] { return client.Call(kHeld, "x"); });
    QVERIFY(WaitUntil([&] { return gate->inside.load() == 1; }));
    constexpr int kCallers = 16;
    for (int i = 0; i < kCallers; ++i) {
      QCOMPARE(client.Call(kHeld, "y").status.code(), Code::kPoolExhausted);
    }
    std::this_thread::sleep_for(kHeldAtLeast);  // A lower bound for the held call's latency.
    gate->release.set_value();
    QVERIFY(held.get().status.ok());

    const PoolSnapshot snapshot = client.Snapshot();
    const ClientThroughput& t = snapshot.throughput;
    QCOMPARE(snapshot.counters.rejections, uint64_t(kCallers));
    QVERIFY(t.requests_per_s > 0);
    QVERIFY(t.rejections_per_s > 0);
    QCOMPARE(t.errors_per_s, 0.0);  // Refused calls are rejections, not failed calls.
    // The one answered call took at least as long as it was held, seen from the client.
    const double held_us = double(kHeldAtLeast.count()) * 1000.0;
    QVERIFY2(t.p99_us >= held_us, qPrintable(QString::number(t.p99_us)));
    QVERIFY(t.max_us >= t.p99_us && t.p99_us >= t.p50_us && t.p50_us >= held_us);
    client.Stop();
    server->Stop();
  }

  void failuresAndRetriesAreCountedAndNotFoundIsAnAnswer() {
    std::unique_ptr<Server> server = StartServer(std::make_shared<HeldCalls>());
    QVERIFY(server);
    ClientOptions options = FastClientOptions({{"127.0.0.1", server->port()}}, 4);
    options.max_retries = 2;
    Client client(options);
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(4, std::chrono::seconds(10)));

    // docs/figures.md: NOT_FOUND and BEHIND are answers. The pool's failure counter (the Slots
    // view's Fail/s) counted them as failures while the rates did not.
    QCOMPARE(client.Call(kMissing, "").status.code(), Code::kNotFound);
    QVERIFY(client.WaitForPool(4, std::chrono::seconds(10)));
    QCOMPARE(client.Call(kBehind, "").status.code(), Code::kBehind);
    ClientThroughput t = client.Snapshot().throughput;
    QVERIFY(t.requests_per_s > 0);
    QCOMPARE(t.errors_per_s, 0.0);
    QCOMPARE(client.Snapshot().counters.failures, uint64_t{0});

    QVERIFY(client.WaitForPool(4, std::chrono::seconds(10)));
    const CallResult failed = client.Call(kUnavailable, "");
    QCOMPARE(failed.status.code(), Code::kUnavailable);
    QVERIFY(failed.attempts > 1);  // Retried before giving up.
    const PoolSnapshot snapshot = client.Snapshot();
    t = snapshot.throughput;
    QVERIFY(snapshot.counters.retries >= 1);
    QVERIFY(t.retries_per_s > 0);
    QVERIFY(t.errors_per_s > 0);
    QCOMPARE(t.rejections_per_s, 0.0);
    QCOMPARE(snapshot.counters.failures, uint64_t{1});
    client.Stop();
    server->Stop();
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ClientFiguresTest)
#include "tst_client_figures.moc"
