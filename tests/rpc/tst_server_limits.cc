// SPDX-License-Identifier: Apache-2.0
// The server survives peers that misbehave slowly or in numbers: a peer that never says hello, one
// that goes silent after it, one that trickles a frame, a request that outlives its deadline in the
// queue, and a flood of connections past the limit. Each is cut off, answered or refused with a
// reason without disturbing well-behaved clients.
#include <QTest>
#include <atomic>
#include <future>
#include <thread>

#include "tests/rpc/rpc_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::rpc;
using namespace railyard::rpc::testing;
using std::chrono::milliseconds;

namespace {

constexpr char kSlowMethod[] = "test.Slow";

std::unique_ptr<Server> StartLimitedServer(milliseconds idle, milliseconds frame,
                                           size_t max_connections) {
  ServerOptions options;
  options.name = "limited";
  options.io_threads = 1;
  // Short for a quick test, but long enough that a loaded machine's delays between the test's own
  // steps (connect, then hello) do not trip it.
  options.handshake_timeout = milliseconds(2000);
  options.idle_timeout = idle;
  options.frame_timeout = frame;
  options.max_connections = max_connections;
  auto server = std::make_unique<Server>(options);
  server->RegisterHandler(kEchoMethod, [](const CallContext&, std::string_view payload) {
    return Reply{Status::Ok(), std::string(payload)};
  });
  server->RegisterHandler(kSlowMethod, [idle](const CallContext&, std::string_view payload) {
    std::this_thread::sleep_for(idle * 3);  // Longer than the idle timeout.
    return Reply{Status::Ok(), std::string(payload)};
  });
  if (!server->Start().ok()) return nullptr;
  return server;
}

wire::Frame RequestFrame(uint64_t id, const std::string& method, const std::string& payload) {
  wire::Frame frame;
  wire::Request* request = frame.mutable_request();
  request->set_id(id);
  request->set_method(method);
  request->set_payload(payload);
  return frame;
}

}  // namespace

class ServerLimitsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // ServerOptions::authenticate names a connection's client from its hello's credentials, every
  // call carries that name, and ServerOptions::authorize refuses a call before its handler runs,
  // with its own status, counted.
  void helloCredentialsNameTheCallerAndAuthorizeGuardsEachCall() {
    ServerOptions options;
    options.name = "guarded";
    options.io_threads = 1;
    options.authenticate = [](const HelloInfo& hello) {
      return hello.credentials == "let-me-in" ? std::string("friend") : std::string();
    };
    options.authorize = [](const CallContext& call) {
      if (call.principal == "friend") return Status::Ok();
      return Status(Code::kUnauthenticated, "strangers may not call " + std::string(call.method));
    };
    Server server(options);
    std::atomic<int> handled{0};
    server.RegisterHandler(kEchoMethod, [&handled](const CallContext& call, std::string_view) {
      ++handled;
      return Reply{Status::Ok(), std::string(call.principal)};
    });
    QVERIFY(server.Start().ok());
    for (const std::string credentials : {"let-me-in", "", "guess"}) {
      ClientOptions client_options;
      client_options.servers = {server.endpoint()};
      client_options.pool_size = 1;
      client_options.credentials = credentials;
      Client client(client_options);
      QVERIFY(client.Start().ok());
      QVERIFY(client.WaitForPool(1, milliseconds(5000)));  // A stranger connects, then is refused.
      const CallResult r = client.Call(kEchoMethod, "hi", milliseconds(5000));
      if (credentials == "let-me-in") {
        QVERIFY2(r.status.ok(), r.status.ToString().c_str());
        QCOMPARE(r.payload, std::string("friend"));
      } else {
        QCOMPARE(r.status.code(), Code::kUnauthenticated);
        QVERIFY2(r.status.message().find("strangers may not call") != std::string::npos,
                 r.status.ToString().c_str());
      }
    }
    QCOMPARE(handled.load(), 1);
    QVERIFY(server.counters().unauthorized >= 2);  // Each refused call, retries included.
    server.Stop();
  }

  void silentPeerIsCutAfterTheHandshakeTimeout() {
    auto server = StartLimitedServer(milliseconds(60000), milliseconds(60000), 16);
    QVERIFY(server);
    RawConnection silent(server->port());
    QVERIFY(silent.WaitForClose(milliseconds(20000)));
    QCOMPARE(server->counters().timeouts, uint64_t{1});
  }

  void idlePeerIsCutAndItsSlotFreed() {
    auto server = StartLimitedServer(milliseconds(1000), milliseconds(60000), 16);
    QVERIFY(server);
    RawConnection idle(server->port());
    QVERIFY(idle.Handshake(1));
    QCOMPARE(server->SlotSnapshot().size(), size_t{1});
    QVERIFY(idle.WaitForClose(milliseconds(20000)));
    QVERIFY(WaitUntil([&] { return server->SlotSnapshot().empty(); }, milliseconds(20000)));
    QCOMPARE(server->counters().timeouts, uint64_t{1});
  }

  void aLongRequestIsNotIdleness() {
    auto server = StartLimitedServer(milliseconds(500), milliseconds(60000), 16);
    QVERIFY(server);
    RawConnection peer(server->port());
    QVERIFY(peer.Handshake(2));
    peer.SendFrame(RequestFrame(7, kSlowMethod, "worth the wait"));
    const std::optional<wire::Frame> answer = peer.ReadFrame(milliseconds(20000));
    QVERIFY(answer && answer->has_response());
    QCOMPARE(answer->response().payload(), std::string("worth the wait"));
    QCOMPARE(server->counters().timeouts, uint64_t{0});
  }

  void tricklingFrameIsCut() {
    auto server = StartLimitedServer(milliseconds(60000), milliseconds(300), 16);
    QVERIFY(server);
    RawConnection slow(server->port());
    QVERIFY(slow.Handshake(3));
    // A header announcing 100 bytes, then only 10 of them.
    std::string bytes = {0, 0, 0, 100};
    bytes += std::string(10, 'x');
    slow.SendBytes(bytes);
    QVERIFY(slow.WaitForClose(milliseconds(20000)));
    QCOMPARE(server->counters().timeouts, uint64_t{1});
  }

  void aRequestWhoseDeadlinePassedInTheQueueIsAnsweredWithoutRunningIt() {
    ServerOptions options;
    options.name = "deadline";
    options.io_threads = 1;
    options.worker_threads = 1;  // One request at a time, so the second one waits in the queue.
    Server server(options);
    std::atomic<bool> blocking{false};
    std::atomic<int> counted{0};
    // The worker is held until the test lets it go (bounded, so a failing test cannot hang),
    // rather than for a fixed time the late request might not arrive within on a loaded machine.
    std::promise<void> gate;
    std::shared_future<void> released = gate.get_future().share();
    server.RegisterHandler("test.Block",
                           [&blocking, released](const CallContext&, std::string_view) {
                             blocking = true;
                             released.wait_for(std::chrono::seconds(30));
                             return Reply{Status::Ok(), "done"};
                           });
    server.RegisterHandler("test.Count", [&counted](const CallContext&, std::string_view) {
      ++counted;
      return Reply{Status::Ok(), "counted"};
    });
    QVERIFY(server.Start().ok());
    RawConnection busy(server.port());
    RawConnection late(server.port());
    QVERIFY(busy.Handshake(20));
    QVERIFY(late.Handshake(21));

    busy.SendFrame(RequestFrame(1, "test.Block", ""));
    QVERIFY(WaitUntil([&] { return blocking.load(); }, milliseconds(5000)));
    wire::Frame expiring = RequestFrame(2, "test.Count", "");
    expiring.mutable_request()->set_timeout_us(50'000);  // Passes while the worker is busy.
    late.SendFrame(expiring);
    // Once it has arrived (in flight: the blocking one and it), let its 50 ms pass, then free
    // the worker.
    QVERIFY(WaitUntil([&] { return server.in_flight() == 2; }, milliseconds(20000)));
    std::this_thread::sleep_for(milliseconds(100));
    gate.set_value();

    const std::optional<wire::Frame> refused = late.ReadFrame(milliseconds(20000));
    QVERIFY(refused && refused->has_response());
    QCOMPARE(refused->response().id(), uint64_t{2});
    QCOMPARE(refused->response().code(), wire::DEADLINE_EXCEEDED);
    QVERIFY2(refused->response().error_message().find("deadline") != std::string::npos,
             refused->response().error_message().c_str());
    QCOMPARE(counted.load(), 0);  // Nobody was waiting for it, so the handler never ran.
    const std::optional<wire::Frame> done = busy.ReadFrame(milliseconds(5000));
    QVERIFY(done && done->has_response());
    QCOMPARE(done->response().payload(), std::string("done"));

    // The connection and the server carry on: a request with time to spare runs.
    late.SendFrame(RequestFrame(3, "test.Count", ""));
    const std::optional<wire::Frame> answered = late.ReadFrame(milliseconds(5000));
    QVERIFY(answered && answered->has_response());
    QCOMPARE(answered->response().payload(), std::string("counted"));
    QCOMPARE(counted.load(), 1);
    server.Stop();
  }

  void connectionsPastTheLimitAreRefusedWithAReason() {
    auto server = StartLimitedServer(milliseconds(60000), milliseconds(60000), 2);
    QVERIFY(server);
    RawConnection first(server->port());
    RawConnection second(server->port());
    QVERIFY(first.Handshake(10));
    QVERIFY(second.Handshake(11));
    RawConnection third(server->port());
    const std::optional<wire::Welcome> refused = third.Handshake(12);
    QVERIFY(refused);
    QVERIFY2(refused->refusal().find("connection limit (2)") != std::string::npos,
             refused->refusal().c_str());
    QVERIFY(third.WaitForClose(milliseconds(5000)));
    QCOMPARE(server->counters().connections_refused, uint64_t{1});
    // A client sees the reason, and works within the limit once a place is free.
    first.Close();
    QVERIFY(WaitUntil([&] { return server->SlotSnapshot().size() == 1; }, milliseconds(5000)));
    Client client(FastClientOptions({server->endpoint()}, 4));
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(1, milliseconds(5000)));
    QCOMPARE(client.Call(kEchoMethod, "inside the limit").payload, std::string("inside the limit"));
    QVERIFY(client.Snapshot().entries.size() <= 1);
    QVERIFY(client.Snapshot().counters.connect_failures > 0);
    client.Stop();
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ServerLimitsTest)
#include "tst_server_limits.moc"
