// SPDX-License-Identifier: Apache-2.0
// Boxcar's retry bounds, counted where the attempts land, on a real server: "the client disposes
// of the associated connection and retries the request on the next best connection. The number of
// retries that can happen is bounded in configuration ... This continues until the client finds a
// connection to a live server, reaches its retry limit, or purges all connections in its pool.
// The latter two conditions both result in the request failing outright."
#include <QElapsedTimer>
#include <QTest>
#include <atomic>
#include <memory>

#include "tests/rpc/rpc_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::rpc;
using namespace railyard::rpc::testing;

namespace {

constexpr char kUnavailableMethod[] = "test.Unavailable";

// A server whose every answer is UNAVAILABLE, a retryable failure; `attempts` counts the requests
// that reached it. Connections past `max_connections` are refused.
struct UnavailableServer {
  std::unique_ptr<Server> server;
  std::shared_ptr<std::atomic<uint64_t>> attempts = std::make_shared<std::atomic<uint64_t>>(0);
};

UnavailableServer StartUnavailableServer(size_t max_connections = ServerOptions{}.max_connections) {
  UnavailableServer result;
  ServerOptions options;
  options.name = "unavailable";
  options.io_threads = 1;
  options.max_connections = max_connections;
  result.server = std::make_unique<Server>(options);
  result.server->RegisterHandler(
      kUnavailableMethod,
      [attempts = result.attempts](const CallContext&, std::string_view) {
        attempts->fetch_add(1);
        return Reply{{Code::kUnavailable, "not serving"}, {}};
      },
      Dispatch::kInline);
  if (!result.server->Start().ok()) qFatal("server start");
  return result;
}

// A client of `server` with a pool of `pool` and `acquirers` acquirers, each of which rests ten
// minutes after a probe that does not improve the pool: longer than any test, so that only a
// loss's wake (or nothing) cuts it short. No client-wide retry budget.
ClientOptions RestingClientOptions(const UnavailableServer& server, size_t pool, size_t acquirers) {
  ClientOptions options = FastClientOptions({server.server->endpoint()}, pool);
  options.retry_budget.reset();
  options.refill_parallelism = acquirers;
  options.acquirer_sleep_min = options.acquirer_sleep_max = std::chrono::minutes(10);
  return options;
}

}  // namespace

class RetriesTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Enough pooled connections that the retry limit, not the pool, ends the call. The client-wide
  // retry budget is off so that max_retries alone bounds it.
  void callMakesAtMostMaxRetriesPlusOneAttempts() {
    UnavailableServer server = StartUnavailableServer();
    for (int max_retries : {0, 1, 3}) {
      ClientOptions options = FastClientOptions({server.server->endpoint()}, 8);
      options.max_retries = max_retries;
      options.retry_budget.reset();
      Client client(options);
      QVERIFY(client.Start().ok());
      QVERIFY(client.WaitForPool(8, std::chrono::seconds(5)));
      const uint64_t before = server.attempts->load();
      const CallResult result = client.Call(kUnavailableMethod, "x");
      QCOMPARE(result.status.code(), Code::kUnavailable);
      QCOMPARE(result.attempts, max_retries + 1);
      QCOMPARE(server.attempts->load() - before, static_cast<uint64_t>(max_retries + 1));
      QCOMPARE(client.Snapshot().counters.retries, static_cast<uint64_t>(max_retries));
    }
  }

  // A pool of 3 connections to a server that fails every request, with room for 10 retries: each
  // failed attempt disposes of its connection, the third leaves the pool empty, and the call fails
  // then rather than waiting for the acquirer to reconnect. So does the next call, at once.
  void purgedPoolFailsOutright() {
    constexpr size_t kPool = 3;
    UnavailableServer server = StartUnavailableServer(kPool);
    // One acquirer. Once the pool is full the server refuses its probe; it then finds no server
    // to probe and sleeps far longer than this test, a sleep that a loss does not cut short:
    // nothing refills the pool while the call purges it.
    ClientOptions options = RestingClientOptions(server, kPool, 1);
    options.max_retries = 10;
    Client client(options);
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(kPool, std::chrono::seconds(5)));
    QVERIFY(WaitUntil([&] { return client.Snapshot().counters.connect_failures >= 1; }));

    const CallResult result = client.Call(kUnavailableMethod, "x");
    QCOMPARE(result.status.code(), Code::kUnavailable);
    QCOMPARE(result.attempts, static_cast<int>(kPool));
    QCOMPARE(server.attempts->load(), uint64_t{kPool});
    QVERIFY2(result.status.message().find("no idle connection left") != std::string::npos,
             result.status.message().c_str());
    QVERIFY(client.Snapshot().entries.empty());

    const CallResult next = client.Call(kUnavailableMethod, "x");
    QCOMPARE(next.status.code(), Code::kUnavailable);
    QCOMPARE(next.attempts, 0);
    QCOMPARE(server.attempts->load(), uint64_t{kPool});
    QCOMPARE(client.Snapshot().counters.connects, uint64_t{kPool});  // No probe got in between.
  }

  // A settled client backs off to probes seconds apart; a pool that then loses its connection
  // refills at once, not when that sleep ends. The acquirer's sleeps here are exact (1 ms times
  // 2^(fruitless probes / 4)), so the loss lands just as a sleep of 2 s or more begins.
  void aLostConnectionCutsASettledBackoffShort() {
    UnavailableServer server = StartUnavailableServer();
    ClientOptions options = FastClientOptions({server.server->endpoint()}, 1);
    options.max_retries = 0;
    options.retry_budget.reset();
    options.refill_parallelism = 1;
    options.acquirer_sleep_min = options.acquirer_sleep_max = std::chrono::milliseconds(1);
    options.acquirer_backoff_limit = 1u << 16;
    Client client(options);
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(1, std::chrono::seconds(5)));
    // Every probe after the first connect is turned away (slot 1 is no better than slot 0):
    // after the 44th, the acquirer sleeps 2^11 ms = 2048 ms.
    constexpr uint64_t kSettled = 1 + 44;
    QVERIFY(WaitUntil([&] { return client.Snapshot().counters.connects >= kSettled; },
                      std::chrono::seconds(60)));
    const uint64_t connects = client.Snapshot().counters.connects;
    QVERIFY2(connects == kSettled, "the count moved on while the test looked: a slow machine");

    // An UNAVAILABLE answer disposes of the only pooled connection.
    QElapsedTimer refill;
    refill.start();
    QCOMPARE(client.Call(kUnavailableMethod, "x").status.code(), Code::kUnavailable);
    QVERIFY(client.WaitForPool(1, std::chrono::seconds(10)));
    const qint64 ms = refill.elapsed();
    qInfo("pool refilled %lld ms after its connection was lost, in a 2048 ms backoff", ms);
    QVERIFY2(ms < 1000, qPrintable(QString("refilled after %1 ms").arg(ms)));
  }

  // An acquirer turned away by a full pool rests (here ten minutes, though only one probe was
  // fruitless); a loss wakes it. Before that rest was wakeable, a pool whose every acquirer had
  // just been turned away stayed short for the whole rest: tst_rpc_retries failed in the TSan
  // stage when acquirer 0 filled a pool of 2 before either spare's first probe returned.
  void aLostConnectionWakesAnAcquirerTurnedAway() { CheckALossRefillsAtOnce(1, 1); }

  // The spare acquirers sleep while the pool is full (rather than polling it every few ms) and a
  // loss wakes them, as it wakes every acquirer resting after a fruitless probe.
  void aLostConnectionWakesTheSpareAcquirers() { CheckALossRefillsAtOnce(2, 3); }

 private:
  // A pool of `pool` whose `acquirers` rest ten minutes once a probe of the full pool is turned
  // away; an UNAVAILABLE answer then disposes of a pooled connection, and the pool must be full
  // again within 2 s.
  void CheckALossRefillsAtOnce(size_t pool, size_t acquirers) {
    UnavailableServer server = StartUnavailableServer();
    ClientOptions options = RestingClientOptions(server, pool, acquirers);
    options.max_retries = 0;
    Client client(options);
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(pool, std::chrono::seconds(5)));
    // An acquirer's probe of the full pool was turned away: it rests for ten minutes.
    QVERIFY(WaitUntil([&] { return client.Snapshot().counters.connects > pool; }));
    QElapsedTimer refill;
    refill.start();
    QCOMPARE(client.Call(kUnavailableMethod, "x").status.code(), Code::kUnavailable);
    // Say how far the acquirers got, should they not refill.
    const bool refilled = client.WaitForPool(pool, std::chrono::seconds(20));
    const ClientCounters c = client.Snapshot().counters;
    QVERIFY2(refilled, qPrintable(QString("pool of %1 after 20 s: %2 connects, %3 failed, %4 "
                                          "replacements")
                                      .arg(client.Snapshot().entries.size())
                                      .arg(c.connects)
                                      .arg(c.connect_failures)
                                      .arg(c.replacements)));
    const qint64 ms = refill.elapsed();
    qInfo("pool of %zu (%zu acquirers) refilled %lld ms after a loss", pool, acquirers, ms);
    QVERIFY2(ms < 2000, qPrintable(QString("refilled after %1 ms").arg(ms)));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(RetriesTest)
#include "tst_retries.moc"
