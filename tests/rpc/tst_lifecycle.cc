// SPDX-License-Identifier: Apache-2.0
// A server's life as the SRE chapter tells it: starting (connected to, sent nothing), serving,
// lame duck (requests that race it still execute; the drain ends on quiet), and idle clients that
// learn of a server's state or disappearance before their next call.
#include <QProcess>
#include <QScopeGuard>
#include <QTest>
#include <csignal>
#include <future>
#include <mutex>
#include <thread>

#include "core/rpc/log_sink.h"
#include "tests/rpc/rpc_test_support.h"
#include "tests/rpc/test_server_process.h"
#include "tests/support/qtest_main.h"
#include "tests/support/thread_count.h"

using namespace railyard::rpc;
using namespace railyard::rpc::testing;
using namespace std::chrono_literals;

namespace {

wire::Frame EchoRequest(uint64_t id) {
  wire::Frame frame;
  frame.mutable_request()->set_id(id);
  frame.mutable_request()->set_method(kEchoMethod);
  frame.mutable_request()->set_payload("hi");
  return frame;
}

// The next response on `connection`, skipping pushed state changes.
std::optional<wire::Response> NextResponse(RawConnection& connection) {
  for (int frames = 0; frames < 4; ++frames) {
    std::optional<wire::Frame> frame = connection.ReadFrame();
    if (!frame) return std::nullopt;
    if (frame->has_response()) return frame->response();
  }
  return std::nullopt;
}

// Opens a connection, says hello and sends one echo request; the answer's code, or nullopt.
std::optional<wire::StatusCode> EchoOnNewConnection(uint16_t port, uint64_t client_id) {
  RawConnection connection(port);
  if (!connection.Handshake(client_id)) return std::nullopt;
  connection.SendFrame(EchoRequest(client_id));
  const std::optional<wire::Response> response = NextResponse(connection);
  if (!response) return std::nullopt;
  return response->code();
}

}  // namespace

class LifecycleTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void startingServerGetsNoRequestsUntilServing() {
    TestServer serving = StartTestServer("serving");
    ServerOptions options;
    options.name = "starting";
    options.io_threads = 1;
    options.serve_on_start = false;
    Server starting(options);
    QVERIFY(starting.Start().ok());
    QCOMPARE(starting.state(), ServerState::kStarting);
    // Handlers may come after Start while starting, as the node registers its store's.
    auto handled = std::make_shared<std::atomic<int>>(0);
    starting.RegisterHandler(kEchoMethod, [handled](const CallContext&, std::string_view p) {
      handled->fetch_add(1);
      return Reply{Status::Ok(), std::string(p)};
    });

    Client client(FastClientOptions({serving.server->endpoint(), starting.endpoint()}, 4));
    QVERIFY(client.Start().ok());
    // The client connects to the starting server and holds the connection...
    QVERIFY(WaitUntil([&] { return !starting.SlotSnapshot().empty(); }));
    QVERIFY(client.WaitForPool(1, 5s));
    // ...but sends it nothing: every call goes to the serving one, first time.
    for (int i = 0; i < 20; ++i) {
      const CallResult result = client.Call(kEchoMethod, "x");
      QVERIFY2(result.status.ok(), result.status.ToString().c_str());
      QCOMPARE(result.attempts, 1);
      QCOMPARE(result.server, std::optional<uint32_t>(0));
    }
    QCOMPARE(starting.counters().requests, uint64_t{0});
    QVERIFY(PooledSlots(client, 1).empty());

    starting.MarkServing();
    QCOMPARE(starting.state(), ServerState::kServing);
    QVERIFY(WaitUntil([&] { return !PooledSlots(client, 1).empty(); }));
    // With the other server draining, calls go to the newly serving one.
    serving.server->EnterLameDuck();
    QVERIFY(WaitUntil([&] { return PooledSlots(client, 0).empty(); }));
    const CallResult result = client.Call(kEchoMethod, "y");
    QVERIFY2(result.status.ok(), result.status.ToString().c_str());
    QCOMPARE(result.server, std::optional<uint32_t>(1));
    QCOMPARE(result.attempts, 1);
    QCOMPARE(handled->load(), 1);
    client.Stop();
  }

  void requestRacingLameDuckExecutes() {
    TestServer server = StartTestServer("duck");
    RawConnection connection(server.server->port());
    QVERIFY(connection.Handshake(1));
    server.server->EnterLameDuck();
    // Sent without reading the push: the client has not heard of the lame duck yet.
    connection.SendFrame(EchoRequest(7));
    const std::optional<wire::Response> response = NextResponse(connection);
    QVERIFY(response);
    QCOMPARE(response->code(), wire::OK);
    QCOMPARE(response->payload(), std::string("hi"));
    QCOMPARE(server.handled->load(), uint64_t{1});
  }

  // What a server refuses by its state is its "rejections" (docs/figures.md): counted and a rate,
  // apart from what its handlers ran.
  void refusalsByStateAreTheServersRejections() {
    ServerOptions options;
    options.name = "refuser";
    options.io_threads = 1;
    options.serve_on_start = false;
    Server server(options);
    QVERIFY(server.Start().ok());
    auto handled = std::make_shared<std::atomic<int>>(0);
    server.RegisterHandler(kEchoMethod, [handled](const CallContext&, std::string_view p) {
      handled->fetch_add(1);
      return Reply{Status::Ok(), std::string(p)};
    });
    QCOMPARE(server.RefusalsPerSecond(), 0.0);

    // Starting: a request sent anyway is answered UNAVAILABLE.
    QCOMPARE(EchoOnNewConnection(server.port(), 1), std::optional(wire::UNAVAILABLE));
    QCOMPARE(server.counters().refused, uint64_t{1});
    QVERIFY(server.RefusalsPerSecond() > 0.0);

    // Serving: a handled request is no refusal.
    server.MarkServing();
    QCOMPARE(EchoOnNewConnection(server.port(), 2), std::optional(wire::OK));
    QCOMPARE(server.counters().refused, uint64_t{1});
    QCOMPARE(handled->load(), 1);

    // Lame duck, told in the handshake: LAME_DUCK.
    server.EnterLameDuck();
    QCOMPARE(EchoOnNewConnection(server.port(), 3), std::optional(wire::LAME_DUCK));
    // A finished request is counted just after its answer is sent.
    QVERIFY(WaitUntil([&] { return server.counters().errors == 2; }));
    const ServerCounters counters = server.counters();
    QCOMPARE(counters.refused, uint64_t{2});
    QCOMPARE(counters.requests, uint64_t{3});
    QCOMPARE(handled->load(), 1);
  }

  // Make before break: a client whose whole pool is on a server that enters lame duck keeps
  // calling it until a replacement is pooled, then lets go (and the drain completes).
  void drainedServerIsKeptUntilAReplacementIsPooled() {
    TestServer draining = StartTestServer("draining");
    ServerOptions options;
    options.name = "late";
    options.io_threads = 1;
    options.serve_on_start = false;
    Server late(options);
    QVERIFY(late.Start().ok());
    late.RegisterHandler(kEchoMethod, [](const CallContext&, std::string_view p) {
      return Reply{Status::Ok(), std::string(p)};
    });
    ClientOptions client_options =
        FastClientOptions({draining.server->endpoint(), late.endpoint()}, 2);
    client_options.lame_duck_avoid = 60s;  // Kept until the replacement, however slow this machine.
    Client client(client_options);
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(2, 5s));
    QVERIFY(WaitUntil([&] { return !late.SlotSnapshot().empty(); }));  // Held, starting.
    QVERIFY(PooledSlots(client, 1).empty());

    draining.server->EnterLameDuck();
    for (int i = 0; i < 20; ++i) {
      const CallResult result = client.Call(kEchoMethod, "still");
      QVERIFY2(result.status.ok(), result.status.ToString().c_str());
      QCOMPARE(result.server, std::optional<uint32_t>(0));
    }
    QVERIFY(!draining.server->SlotSnapshot().empty());

    late.MarkServing();
    QVERIFY(WaitUntil([&] { return draining.server->SlotSnapshot().empty(); }));
    const CallResult moved = client.Call(kEchoMethod, "moved");
    QVERIFY2(moved.status.ok(), moved.status.ToString().c_str());
    QCOMPARE(moved.server, std::optional<uint32_t>(1));
    client.Stop();
  }

  // ...and a replacement is pooled even when its slot is worse than the draining ones' (the
  // pool is full of them): found by the lab's rolling restart, whose reader's pool emptied when
  // lame_duck_avoid ran out with every replacement turned away.
  void aWorseSlottedReplacementDisplacesADrainingServer() {
    TestServer draining = StartTestServer("draining");
    TestServer crowded = StartTestServer("crowded");
    // Another client's connections hold the crowded server's slots 0 and 1.
    RawConnection first(crowded.server->port()), second(crowded.server->port());
    QVERIFY(first.Handshake(1) && second.Handshake(2));
    ClientOptions client_options =
        FastClientOptions({draining.server->endpoint(), crowded.server->endpoint()}, 2);
    client_options.lame_duck_avoid = 60s;  // Only a pooled replacement can end this drain.
    Client client(client_options);
    QVERIFY(client.Start().ok());
    QVERIFY(WaitUntil([&] {
      return PooledSlots(client, 0) == std::vector<uint32_t>{0, 1} &&
             PooledSlots(client, 1).empty();
    }));

    draining.server->EnterLameDuck();
    QVERIFY(WaitUntil([&] {
      const CallResult result = client.Call(kEchoMethod, "moving");
      return result.status.ok() && draining.server->SlotSnapshot().empty();
    }));
    QVERIFY(!PooledSlots(client, 1).empty());
    QVERIFY(PooledSlots(client, 1).front() >= 2u);
    const CallResult moved = client.Call(kEchoMethod, "moved");
    QVERIFY2(moved.status.ok(), moved.status.ToString().c_str());
    QCOMPARE(moved.server, std::optional<uint32_t>(1));
    client.Stop();
  }

  // ...but a client with nowhere else to go lets go after lame_duck_avoid: it does not hold a
  // drain up.
  void aLoneClientLetsADrainEnd() {
    TestServer only = StartTestServer("only");
    ClientOptions options = FastClientOptions({only.server->endpoint()}, 2);
    options.lame_duck_avoid = 300ms;
    Client client(options);
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(2, 5s));
    only.server->EnterLameDuck();
    QVERIFY(WaitUntil([&] { return only.server->SlotSnapshot().empty(); }));
    client.Stop();
  }

  void drainEndsOnQuietBeforeTheGrace() {
    ServerOptions options;
    options.name = "drain";
    options.io_threads = 1;
    Server server(options);
    std::promise<void> gate;
    std::shared_future<void> opened = gate.get_future().share();
    server.RegisterHandler("test.Hold", [opened](const CallContext&, std::string_view) {
      opened.wait_for(20s);
      return Reply{Status::Ok(), "released"};
    });
    auto handled = std::make_shared<std::atomic<int>>(0);
    server.RegisterHandler(kEchoMethod, [handled](const CallContext&, std::string_view p) {
      handled->fetch_add(1);
      return Reply{Status::Ok(), std::string(p)};
    });
    QVERIFY(server.Start().ok());
    RawConnection holder(server.port()), late(server.port());
    QVERIFY(holder.Handshake(1) && late.Handshake(2));
    wire::Frame hold;
    hold.mutable_request()->set_id(1);
    hold.mutable_request()->set_method("test.Hold");
    holder.SendFrame(hold);
    QVERIFY(WaitUntil([&] { return server.in_flight() == 1; }));

    // A grace far longer than the test may run: only the quiet rule can end this drain.
    auto drained = std::async(std::launch::async, [&] { server.Shutdown(600s, 50ms); });
    bool released = false;
    // On a failed check: release the handler and stop, so the drain's thread ends at once.
    const auto cleanup = qScopeGuard([&] {
      if (!released) gate.set_value();
      server.Stop();
    });
    QVERIFY(WaitUntil([&] { return server.state() == ServerState::kLameDuck; }));
    // A request that raced the drain executes, as the one in flight does.
    late.SendFrame(EchoRequest(2));
    const std::optional<wire::Response> raced = NextResponse(late);
    QVERIFY(raced);
    QCOMPARE(raced->code(), wire::OK);
    QCOMPARE(handled->load(), 1);
    QVERIFY(drained.wait_for(0s) == std::future_status::timeout);  // The held one is in flight.
    gate.set_value();
    released = true;
    const std::optional<wire::Response> held = NextResponse(holder);
    QVERIFY(held);
    QCOMPARE(held->code(), wire::OK);
    QVERIFY(drained.wait_for(30s) == std::future_status::ready);
    QCOMPARE(server.state(), ServerState::kStopped);
  }

  void drainWaitsForQuietWithNothingInFlight() {
    TestServer server = StartTestServer("quiet");
    RawConnection connection(server.server->port());
    QVERIFY(connection.Handshake(1));
    // Nothing in flight, but a request may still be on its way from a client that has not heard.
    auto drained = std::async(std::launch::async, [&] { server.server->Shutdown(600s, 600s); });
    const auto cleanup = qScopeGuard([&] { server.server->Stop(); });
    QVERIFY(WaitUntil([&] { return server.server->state() == ServerState::kLameDuck; }));
    // Cannot be over before the quiet period (600 s); the drain used to end here at once.
    QVERIFY(drained.wait_for(200ms) == std::future_status::timeout);
    connection.SendFrame(EchoRequest(3));
    const std::optional<wire::Response> response = NextResponse(connection);
    QVERIFY(response);
    QCOMPARE(response->code(), wire::OK);
    server.server->Stop();
    QVERIFY(drained.wait_for(30s) == std::future_status::ready);
  }

  void pingIsAnsweredWithTheStateAndIsNoRequest() {
    TestServer server = StartTestServer("pinged");
    RawConnection connection(server.server->port());
    QVERIFY(connection.Handshake(1));
    wire::Frame ping;
    ping.mutable_ping()->set_id(5);
    connection.SendFrame(ping);
    std::optional<wire::Frame> pong = connection.ReadFrame();
    QVERIFY(pong && pong->has_pong());
    QCOMPARE(pong->pong().id(), uint64_t{5});
    QCOMPARE(pong->pong().state(), wire::SERVER_SERVING);
    server.server->EnterLameDuck();
    const std::optional<wire::Frame> pushed = connection.ReadFrame();
    QVERIFY(pushed && pushed->has_state_change());
    ping.mutable_ping()->set_id(6);
    connection.SendFrame(ping);
    pong = connection.ReadFrame();
    QVERIFY(pong && pong->has_pong());
    QCOMPARE(pong->pong().id(), uint64_t{6});
    QCOMPARE(pong->pong().state(), wire::SERVER_LAME_DUCK);
    QCOMPARE(server.server->counters().requests, uint64_t{0});
  }

  void idleClientAvoidsLameDuckAndHungServers() {
    ServerProcess hung("hung");
    TestServer duck = StartTestServer("duck");
    TestServer healthy = StartTestServer("healthy");
    ClientOptions options = FastClientOptions(
        {hung.endpoint(), duck.server->endpoint(), healthy.server->endpoint()}, 6);
    options.health_check_interval = 50ms;
    options.max_retries = 0;  // A call that needed a retry fails, so none can hide.
    Client client(options);
    QVERIFY(client.Start().ok());
    QVERIFY(WaitUntil([&] {
      return !PooledSlots(client, 0).empty() && !PooledSlots(client, 1).empty() &&
             !PooledSlots(client, 2).empty();
    }));

    // The client is idle while one server drains and another stops answering without closing
    // its connections (a hung process, or a host gone from the network).
    duck.server->EnterLameDuck();
    QCOMPARE(::kill(hung.pid(), SIGSTOP), 0);
    QVERIFY(WaitUntil([&] { return PooledSlots(client, 0).empty(); }, 20s));
    QVERIFY(WaitUntil([&] { return PooledSlots(client, 1).empty(); }));
    for (int i = 0; i < 6; ++i) {
      const CallResult result = client.Call(kEchoMethod, "x", 2s);
      QVERIFY2(result.status.ok(), result.status.ToString().c_str());
      QCOMPARE(result.attempts, 1);
      QCOMPARE(result.server, std::optional<uint32_t>(2));
    }
    QCOMPARE(duck.handled->load(), uint64_t{0});
    client.Stop();
  }

  // A connection that carries no request for inactive_after is checked at the long interval (the
  // SRE chapter's inactive mode), and a call makes it active again at once.
  void anInactiveConnectionIsCheckedRarelyUntilItsNextCall() {
    TestServer server = StartTestServer("inactive");
    ClientOptions options = FastClientOptions({server.server->endpoint()}, 1);
    options.health_check_interval = 50ms;
    options.inactive_after = 3s;
    options.inactive_health_check_interval = 10min;  // Longer than the test: none once inactive.
    Client client(options);
    QVERIFY(client.Start().ok());
    QVERIFY(WaitUntil([&] { return !PooledSlots(client, 0).empty(); }));
    const auto pooled = std::chrono::steady_clock::now();
    auto pings = [&] { return server.server->counters().pings; };
    // Active: checked an interval after each check ended.
    QVERIFY(WaitUntil([&] { return pings() >= 3; }));
    // Inactive from inactive_after: at most the ping then in flight. The window is what is
    // measured, so the test waits it out.
    std::this_thread::sleep_until(pooled + options.inactive_after +
                                  2 * options.health_check_interval);
    const uint64_t inactive_from = pings();
    // A check waits out its pong's timeout (500 ms) before the next interval: 5 checks' worth.
    std::this_thread::sleep_for(3s);
    QVERIFY2(pings() <= inactive_from + 1, qPrintable(QString::number(pings() - inactive_from)));
    // A call: active again, checked every interval without waiting out the long one.
    QVERIFY(client.Call(kEchoMethod, "x", 2s).status.ok());
    const uint64_t after_call = pings();
    QVERIFY(WaitUntil([&] { return pings() >= after_call + 2; }, 5s));
    QCOMPARE(server.server->counters().requests, uint64_t{1});
    client.Stop();
  }

  // A client stopped while it waits for a server's hello closes that connection itself: no
  // "connecting to ..." warning, as if the server had failed (service_bench printed "Bad file
  // descriptor" for each admin client it let go while its pool was still growing).
  void aClientStoppedMidConnectLogsNoFailure() {
    asio::io_context io;
    // Listens and never answers: the kernel completes each connect, the hello goes unanswered.
    asio::ip::tcp::acceptor silent(io, {asio::ip::make_address("127.0.0.1"), 0});
    struct Received {
      std::mutex mutex;
      std::vector<std::string> warnings;
    };
    auto received = std::make_shared<Received>();
    SetLogSink([received](LogLevel level, std::string_view line) {
      std::lock_guard lock(received->mutex);
      if (level >= LogLevel::kWarning) received->warnings.emplace_back(line);
    });
    auto restore = qScopeGuard([] { SetLogSink({}); });
    ClientOptions options =
        FastClientOptions({Endpoint{"127.0.0.1", silent.local_endpoint().port()}}, 2);
    options.connect_timeout = 20s;  // Longer than the test: only Stop ends the wait.
    Client client(options);
    QVERIFY(client.Start().ok());
    silent.non_blocking(true);
    asio::ip::tcp::socket accepted(io);
    // Once accepted, the client's connect is in flight, waiting for the hello.
    QVERIFY(WaitUntil([&] {
      asio::error_code ec;
      silent.accept(accepted, ec);
      return !ec;
    }));
    client.Stop();
    std::lock_guard lock(received->mutex);
    QVERIFY2(received->warnings.empty(),
             received->warnings.empty() ? "" : received->warnings.front().c_str());
    QCOMPARE(client.Snapshot().counters.connect_failures, uint64_t{0});
  }

  // Clients on shared I/O threads (ClientOptions::io) start no threads of their own; one stopped
  // with calls in flight answers each of them before its Stop returns, and the others on the same
  // threads go on answering; the threads end with the last owner of the IoThreads.
  void clientsOnSharedIoThreadsStopOneByOne() {
    TestServer server = StartTestServer("shared");
    const size_t before = railyard::testing::ThreadCount();
    auto io = std::make_shared<IoThreads>(2);
    QCOMPARE(railyard::testing::ThreadCount(), before + 2);
    std::vector<std::unique_ptr<Client>> clients;
    for (int i = 0; i < 8; ++i) {
      ClientOptions options = FastClientOptions({server.server->endpoint()}, 2);
      options.io = io;
      clients.push_back(std::make_unique<Client>(options));
      QVERIFY(clients.back()->Start().ok());
    }
    for (auto& client : clients) QVERIFY(client->WaitForPool(1, 5s));
    QCOMPARE(railyard::testing::ThreadCount(), before + 2);

    auto answered = std::make_shared<std::atomic<int>>(0);
    constexpr int kCalls = 50;
    for (int k = 0; k < kCalls; ++k) {
      clients[0]->AsyncCall(kEchoMethod, "x", [answered](CallResult&&) { answered->fetch_add(1); });
    }
    clients[0].reset();
    QCOMPARE(answered->load(), kCalls);
    for (size_t i = 1; i < clients.size(); ++i) {
      const CallResult result = clients[i]->Call(kEchoMethod, "y");
      QVERIFY2(result.status.ok(), result.status.message().c_str());
      QCOMPARE(result.payload, std::string("y"));
    }
    clients.clear();
    QCOMPARE(io.use_count(), 1L);  // The clients let go of it.
    io.reset();
    QCOMPARE(railyard::testing::ThreadCountOnceItIs(before), before);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(LifecycleTest)
#include "tst_lifecycle.moc"
