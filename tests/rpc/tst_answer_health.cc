// SPDX-License-Identifier: Apache-2.0
// Boxcar's remedy for a sinkhole on real servers: a connection whose answers keep failing is
// disposed of and later calls go to another server; application errors never cost a connection.
#include <QTest>

#include "core/balance/answer_health.h"
#include "tests/rpc/rpc_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::rpc;
using namespace railyard::rpc::testing;

namespace {

// A server whose every answer is a fast INTERNAL error: "I'm unhealthy!", on a connection it keeps.
// It takes one connection at a time, so a second connection from the same client cannot displace
// the healthy server's from the pool.
std::unique_ptr<Server> StartSinkhole(const std::shared_ptr<std::atomic<uint64_t>>& answered) {
  ServerOptions options;
  options.name = "sinkhole";
  options.io_threads = 1;
  options.max_connections = 1;
  auto server = std::make_unique<Server>(options);
  server->RegisterHandler(kWorkMethod, [answered](const CallContext&, std::string_view) {
    answered->fetch_add(1);
    return Reply{{Code::kInternal, "I'm unhealthy"}, {}};
  });
  if (!server->Start().ok()) return nullptr;
  return server;
}

std::unique_ptr<Server> StartHealthy() {
  ServerOptions options;
  options.name = "healthy";
  options.io_threads = 1;
  auto server = std::make_unique<Server>(options);
  server->RegisterHandler(kWorkMethod, [](const CallContext&, std::string_view payload) {
    return Reply{Status::Ok(), std::string(payload)};
  });
  if (!server->Start().ok()) return nullptr;
  return server;
}

}  // namespace

class TestAnswerHealth : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void connectionAnsweringFastErrorsIsDisposedOfAndCallsMoveOn() {
    auto sink_answers = std::make_shared<std::atomic<uint64_t>>(0);
    std::unique_ptr<Server> sink = StartSinkhole(sink_answers);
    std::unique_ptr<Server> healthy = StartHealthy();
    QVERIFY(sink && healthy);

    // Another client holds the healthy server's slot 0, so the sinkhole's slot 0 is the test
    // client's best connection: lowest slot alone would send it every call.
    Client filler(FastClientOptions({healthy->endpoint()}, 1));
    QVERIFY(filler.Start().ok());
    QVERIFY(filler.WaitForPool(1, std::chrono::seconds(5)));

    ClientOptions options = FastClientOptions({sink->endpoint(), healthy->endpoint()}, 2);
    Client client(options);
    QVERIFY(client.Start().ok());
    // The pool fills from random servers; the acquirer's probes then bring in the sinkhole's slot
    // 0.
    // Both connections, each after its own handshake: the healthy one may complete last.
    QVERIFY(WaitUntil([&] {
      return PooledSlots(client, 0) == std::vector<uint32_t>{0} &&
             PooledSlots(client, 1).size() == 1;
    }));
    const std::vector<uint32_t> healthy_slots = PooledSlots(client, 1);
    QCOMPARE(healthy_slots.size(), size_t{1});
    QVERIFY(healthy_slots.front() >= 1);

    constexpr int kCalls = 30;
    int to_sink = 0;
    int to_healthy = 0;
    for (int i = 0; i < kCalls; ++i) {
      const CallResult result = client.Call(kWorkMethod, "x", std::chrono::seconds(5));
      QVERIFY(result.server.has_value());
      if (*result.server == 0) {
        ++to_sink;
        // The failing answer itself still reaches the caller as it is, without a retry.
        QCOMPARE(result.status.code(), Code::kInternal);
        QCOMPARE(QString::fromStdString(result.status.message()), QString("I'm unhealthy"));
        QCOMPARE(result.attempts, 1);
      } else {
        ++to_healthy;
        QVERIFY2(result.status.ok(), result.status.ToString().c_str());
      }
      if (i < 3) QCOMPARE(*result.server, 0u);  // Its best connection, until the third failure.
    }
    // Each connection to the sinkhole answered at most three times before it was disposed of.
    const uint64_t sink_connections = sink->counters().connections_accepted;
    QCOMPARE(sink_answers->load(), static_cast<uint64_t>(to_sink));
    QVERIFY2(static_cast<uint64_t>(to_sink) <=
                 railyard::balance::AnswerHealth::kDefaultLimit * sink_connections,
             (std::to_string(to_sink) + " answers on " + std::to_string(sink_connections) +
              " connections")
                 .c_str());
    QVERIFY(to_healthy > 0);
  }

  // A wrong token gets the same answer from every server: replacing the connection would only
  // churn (and hand a guesser fresh connections).
  void unauthenticatedAnswersKeepTheConnection() {
    ServerOptions options;
    options.name = "refuses";
    options.io_threads = 1;
    Server server(options);
    server.RegisterHandler(kWorkMethod, [](const CallContext&, std::string_view) {
      return Reply{{Code::kUnauthenticated, "bad token"}, {}};
    });
    QVERIFY(server.Start().ok());
    Client client(FastClientOptions({server.endpoint()}, 1));
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(1, std::chrono::seconds(5)));
    // Settled on the best slot: two acquirers may have connected at once, and the slot-1
    // connection pooled first would be swapped for slot 0 after the first calls.
    QVERIFY(WaitUntil([&] { return PooledSlots(client, 0) == std::vector<uint32_t>{0}; }));
    for (int i = 0; i < 10; ++i) {
      const CallResult result = client.Call(kWorkMethod, "x", std::chrono::seconds(5));
      QCOMPARE(result.status.code(), Code::kUnauthenticated);
      QCOMPARE(result.attempts, 1);
    }
    const PoolSnapshot snapshot = client.Snapshot();
    QCOMPARE(snapshot.entries.size(), size_t{1});
    QCOMPARE(snapshot.entries.front().requests, uint64_t{10});
  }

  void applicationErrorsKeepTheConnection() {
    TestServer server = StartTestServer("app-errors");
    Client client(FastClientOptions({server.server->endpoint()}, 1));
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(1, std::chrono::seconds(5)));
    // Settled on the best slot: two acquirers may have connected at once, and the slot-1
    // connection pooled first would be swapped for slot 0 after the first calls.
    QVERIFY(WaitUntil([&] { return PooledSlots(client, 0) == std::vector<uint32_t>{0}; }));
    for (int i = 0; i < 10; ++i) {
      const CallResult result = client.Call(kFailMethod, "x", std::chrono::seconds(5));
      QCOMPARE(result.status.code(), Code::kNotFound);
      QCOMPARE(result.attempts, 1);
    }
    // The one pooled connection carried every call.
    const PoolSnapshot snapshot = client.Snapshot();
    QCOMPARE(snapshot.entries.size(), size_t{1});
    QCOMPARE(snapshot.entries.front().requests, uint64_t{10});
  }
};

RAILYARD_QTEST_GUILESS_MAIN(TestAnswerHealth)
#include "tst_answer_health.moc"
