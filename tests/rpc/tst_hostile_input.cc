// SPDX-License-Identifier: Apache-2.0
// Fail-fast and bad input: pool exhaustion, application errors, deadlines, and malformed,
// oversized or truncated frames that must close only the offending connection.
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <QTest>
#include <future>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "core/rpc/log_sink.h"
#include "tests/rpc/rpc_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::rpc;
using namespace railyard::rpc::testing;

namespace {

// A server whose "test.Hold" requests wait until the gate opens (or 10 s pass).
struct HoldingServer {
  HoldingServer() : server(ServerOptions{}) {
    std::shared_future<void> opened = gate.get_future().share();
    server.RegisterHandler("test.Hold", [opened](const CallContext&, std::string_view) {
      opened.wait_for(std::chrono::seconds(10));
      return Reply{Status::Ok(), "released"};
    });
    server.RegisterHandler(kEchoMethod, [](const CallContext&, std::string_view payload) {
      return Reply{Status::Ok(), std::string(payload)};
    });
  }
  ~HoldingServer() {
    Open();
    server.Stop();
  }
  void Open() {
    if (!opened) gate.set_value();
    opened = true;
  }
  Server server;
  std::promise<void> gate;
  bool opened = false;
};

std::string FrameHeader(uint32_t length) {
  std::string header(4, '\0');
  header[0] = static_cast<char>(length >> 24);
  header[1] = static_cast<char>(length >> 16);
  header[2] = static_cast<char>(length >> 8);
  header[3] = static_cast<char>(length);
  return header;
}

}  // namespace

class HostileInputTest : public QObject {
  Q_OBJECT

  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> log_ =
      std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(200);

  bool Logged(const std::string& text) {
    for (const std::string& line : log_->last_formatted()) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  }

 private Q_SLOTS:
  void initTestCase() {
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", log_));
    spdlog::set_level(spdlog::level::info);
  }

  void exhaustedPoolRejectsAtOnce() {
    HoldingServer holding;
    QVERIFY(holding.server.Start().ok());
    Client client(FastClientOptions({holding.server.endpoint()}, 2));
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(2, std::chrono::seconds(5)));
    std::promise<CallResult> first, second;
    client.AsyncCall("test.Hold", "", [&](CallResult&& r) { first.set_value(std::move(r)); });
    client.AsyncCall("test.Hold", "", [&](CallResult&& r) { second.set_value(std::move(r)); });
    QVERIFY(WaitUntil([&] { return holding.server.in_flight() == 2; }));

    // The third call is refused before AsyncCall even returns: fail fast, no queueing.
    bool answered = false;
    Code code = Code::kOk;
    client.AsyncCall("test.Hold", "", [&](CallResult&& r) {
      answered = true;
      code = r.status.code();
    });
    QVERIFY(answered);
    QCOMPARE(code, Code::kPoolExhausted);
    QCOMPARE(client.Snapshot().counters.rejections, uint64_t{1});

    holding.Open();
    QVERIFY(first.get_future().get().status.ok());
    QVERIFY(second.get_future().get().status.ok());
  }

  void applicationErrorsAreReturnedNotRetried() {
    TestServer server = StartTestServer("app-errors");
    Client client(FastClientOptions({server.server->endpoint()}, 4));
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(4, std::chrono::seconds(5)));
    const CallResult failed = client.Call(kFailMethod, "");
    QCOMPARE(failed.status.code(), Code::kNotFound);
    QCOMPARE(failed.status.message(), std::string("no such document"));
    QCOMPARE(failed.attempts, 1);
    const CallResult unknown = client.Call("no.Such", "");
    QCOMPARE(unknown.status.code(), Code::kUnknownMethod);
    QCOMPARE(unknown.attempts, 1);
    QCOMPARE(client.Snapshot().counters.retries, uint64_t{0});
    QCOMPARE(client.Snapshot().entries.size(), size_t{4});  // Errors keep their connections.
  }

  void deadlineExceededIsReportedAndTheClientRecovers() {
    HoldingServer holding;
    QVERIFY(holding.server.Start().ok());
    Client client(FastClientOptions({holding.server.endpoint()}, 2));
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(2, std::chrono::seconds(5)));
    const CallResult late = client.Call("test.Hold", "", std::chrono::milliseconds(100));
    QCOMPARE(late.status.code(), Code::kDeadlineExceeded);
    QCOMPARE(late.attempts, 1);
    holding.Open();
    QVERIFY(client.WaitForPool(2, std::chrono::seconds(5)));
    QCOMPARE(client.Call(kEchoMethod, "again").payload, std::string("again"));
  }

  void badFramesCloseOnlyTheirConnection() {
    TestServer server = StartTestServer("hostile", std::chrono::microseconds(0), 1 << 20);
    const uint16_t port = server.server->port();
    Client client(FastClientOptions({server.server->endpoint()}, 4));
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(4, std::chrono::seconds(5)));
    RawConnection bystander(port);
    QVERIFY(bystander.Handshake(77));

    struct Case {
      const char* name;
      std::string bytes;
      bool handshake_first;
      bool close_write;
      const char* logged;
    };
    const std::string garbage(10, '\xff');
    const std::vector<Case> cases = {
        {"oversized", FrameHeader(100u << 20), true, false, "exceeds the limit"},
        {"malformed", FrameHeader(10) + garbage, true, false, "malformed frame body"},
        {"truncated", FrameHeader(100) + std::string(10, 'a'), true, true, "truncated frame"},
        {"torn header", std::string(2, '\0'), true, true, "truncated frame header"},
        {"request before hello",
         [] {
           wire::Frame f;
           f.mutable_request()->set_id(1);
           f.mutable_request()->set_method(kEchoMethod);
           return EncodeFrame(f);
         }(),
         false, false, "expected a hello frame"},
    };
    uint64_t expected_protocol_errors = 0;
    for (const Case& c : cases) {
      RawConnection attacker(port);
      if (c.handshake_first) QVERIFY2(attacker.Handshake(99), c.name);
      attacker.SendBytes(c.bytes);
      if (c.close_write) attacker.Close();
      if (!c.close_write) QVERIFY2(attacker.WaitForClose(), c.name);
      ++expected_protocol_errors;
      QVERIFY2(WaitUntil([&] {
                 return server.server->counters().protocol_errors == expected_protocol_errors;
               }),
               c.name);
      QVERIFY2(Logged(c.logged), c.name);
      // Everyone else is still served.
      QCOMPARE(client.Call(kEchoMethod, c.name).payload, std::string(c.name));
    }
    wire::Frame request;
    request.mutable_request()->set_id(5);
    request.mutable_request()->set_method(kEchoMethod);
    request.mutable_request()->set_payload("still here");
    bystander.SendFrame(request);
    const auto response = bystander.ReadFrame();
    QVERIFY(response && response->has_response());
    QCOMPARE(response->response().payload(), std::string("still here"));
    // Only the client's pool and the bystander hold slots now.
    QVERIFY(WaitUntil([&] { return server.server->SlotSnapshot().size() <= 4 + 1 + 1; }));
  }

  // A program that embeds Boxcar sets its own log sink: the lines go there, not to spdlog, with
  // their level; an empty sink gives them back to spdlog.
  void aProgramsLogSinkGetsTheLinesAndCanBeRemoved() {
    struct Received {
      std::mutex mutex;
      std::vector<std::pair<LogLevel, std::string>> lines;
    };
    auto received = std::make_shared<Received>();
    SetLogSink([received](LogLevel level, std::string_view line) {
      std::lock_guard lock(received->mutex);
      received->lines.emplace_back(level, std::string(line));
    });
    auto sink_saw = [&](LogLevel level, const std::string& text) {
      std::lock_guard lock(received->mutex);
      for (const auto& [l, line] : received->lines) {
        if (l == level && line.find(text) != std::string::npos) return true;
      }
      return false;
    };
    TestServer server = StartTestServer("sunk");
    const uint16_t port = server.server->port();
    QVERIFY(sink_saw(LogLevel::kInfo, "server sunk listening on 127.0.0.1:"));
    {
      RawConnection attacker(port);
      QVERIFY(attacker.Handshake(5));
      attacker.SendBytes(FrameHeader(10) + std::string(10, '\xfe'));
      QVERIFY(attacker.WaitForClose());
    }
    QVERIFY(WaitUntil([&] { return sink_saw(LogLevel::kWarning, "malformed frame body"); }));
    QVERIFY(!Logged("server sunk listening"));  // Not also to spdlog.

    SetLogSink({});
    const size_t before = [&] {
      std::lock_guard lock(received->mutex);
      return received->lines.size();
    }();
    server.server->Stop();
    QVERIFY(Logged("server sunk stopped"));
    std::lock_guard lock(received->mutex);
    QCOMPARE(received->lines.size(), before);
  }

  void unsupportedProtocolVersionIsRefusedClearly() {
    TestServer server = StartTestServer("versions");
    RawConnection conn(server.server->port());
    wire::Frame hello;
    hello.mutable_hello()->set_client_id(1);
    hello.mutable_hello()->set_protocol_version(kProtocolVersion + 1);
    conn.SendFrame(hello);
    const auto answer = conn.ReadFrame();
    QVERIFY(answer && answer->has_welcome());
    QVERIFY(answer->welcome().refusal().find("unsupported protocol version") != std::string::npos);
    QVERIFY(conn.WaitForClose());
    QVERIFY(server.server->SlotSnapshot().empty());
  }

  void unreachableServersGiveAClearError() {
    // Reserve a port, then free it, so nothing listens there.
    uint16_t port = 0;
    {
      TestServer gone = StartTestServer("gone");
      port = gone.server->port();
    }
    Client client(FastClientOptions({{"127.0.0.1", port}}, 2));
    QVERIFY(client.Start().ok());
    const CallResult result = client.Call(kEchoMethod, "");
    QCOMPARE(result.status.code(), Code::kUnavailable);
    QVERIFY(result.status.message().find("no connection") != std::string::npos);
    QVERIFY(WaitUntil([&] { return client.Snapshot().counters.connect_failures > 0; }));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(HostileInputTest)
#include "tst_hostile_input.moc"
