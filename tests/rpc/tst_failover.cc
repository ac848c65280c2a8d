// SPDX-License-Identifier: Apache-2.0
// Losing and draining servers under load: no request fails, traffic moves, pools refill.
#include <QProcess>
#include <QTest>
#include <future>
#include <thread>

#include "core/load/closed_loop_load.h"
#include "tests/rpc/rpc_test_support.h"
#include "tests/rpc/test_server_process.h"
#include "tests/support/qtest_main.h"

using namespace railyard::rpc;
using namespace railyard::rpc::testing;
using railyard::load::ClosedLoopLoad;

namespace {

std::string FailureSummary(const std::vector<std::unique_ptr<ClosedLoopLoad>>& loads) {
  std::string out;
  for (const auto& load : loads) {
    for (const auto& [code, info] : load->failures()) {
      out += code + " x" + std::to_string(info.first) + " (" + info.second + "); ";
    }
  }
  return out;
}

uint64_t TotalFailed(const std::vector<std::unique_ptr<ClosedLoopLoad>>& loads) {
  uint64_t failed = 0;
  for (const auto& load : loads) failed += load->failed();
  return failed;
}

uint64_t TotalSucceeded(const std::vector<std::unique_ptr<ClosedLoopLoad>>& loads) {
  uint64_t succeeded = 0;
  for (const auto& load : loads) succeeded += load->succeeded();
  return succeeded;
}

// Clients with closed-loop load, torn down in the right order.
struct LoadRig {
  LoadRig(const std::vector<Endpoint>& servers, int clients, size_t pool, size_t concurrency) {
    for (int i = 0; i < clients; ++i) {
      ClientOptions options = FastClientOptions(servers, pool);
      options.max_retries = 2;
      options.client_name = "rig-" + std::to_string(i);
      this->clients.push_back(std::make_unique<Client>(options));
    }
    for (auto& client : this->clients) {
      if (client->Start().ok() && client->WaitForPool(pool, std::chrono::seconds(20))) ++ready;
      loads.push_back(
          std::make_unique<ClosedLoopLoad>(*client, kEchoMethod, "payload", concurrency));
    }
    for (auto& load : loads) load->Start();
  }
  ~LoadRig() { StopLoad(); }
  bool StopLoad() {
    bool idle = true;
    for (auto& load : loads) load->Stop();
    for (auto& load : loads) idle = load->WaitIdle(std::chrono::seconds(10)) && idle;
    return idle;
  }
  std::vector<std::unique_ptr<Client>> clients;
  std::vector<std::unique_ptr<ClosedLoopLoad>> loads;
  int ready = 0;
};

}  // namespace

class FailoverTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void serverKilledUnderLoadLosesNoRequest() {
    ServerProcess a("a", 200), b("b", 200), c("c", 200);
    QVERIFY(a.port() && b.port() && c.port());
    // The default pool of 32 serves 8 callers even with a server gone: pools sized for peak.
    LoadRig rig({a.endpoint(), b.endpoint(), c.endpoint()}, 3, 32, 8);
    QCOMPARE(rig.ready, 3);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const uint64_t before_kill = TotalSucceeded(rig.loads);
    b.process().kill();  // SIGKILL: no lame duck, connections just die.
    QVERIFY(b.process().waitForFinished(5000));
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // Load runs on through it.
    // Traffic went on (waited for: a loaded machine may take longer than the pause for 100).
    QVERIFY(WaitUntil([&] { return TotalSucceeded(rig.loads) > before_kill + 100; },
                      std::chrono::seconds(30)));
    QVERIFY(rig.StopLoad());
    QVERIFY2(TotalFailed(rig.loads) == 0, FailureSummary(rig.loads).c_str());
    // The pools refill, with the live servers only (once each client has seen b's connections
    // die, which it may not have yet on a loaded machine).
    for (auto& client : rig.clients) {
      QVERIFY(WaitUntil([&] { return PooledSlots(*client, 1).empty(); }, std::chrono::seconds(20)));
      QVERIFY(client->WaitForPool(32, std::chrono::seconds(20)));
    }
    uint64_t retries = 0;
    for (auto& client : rig.clients) retries += client->Snapshot().counters.retries;
    qInfo("after SIGKILL: %llu retries, %llu requests ok", static_cast<unsigned long long>(retries),
          static_cast<unsigned long long>(TotalSucceeded(rig.loads)));
  }

  void drainedServerGetsNoNewRequestsAndFinishesInFlight() {
    TestServer a = StartTestServer("a", std::chrono::microseconds(500));
    TestServer b = StartTestServer("b", std::chrono::microseconds(500));
    // Server c also has a method that holds a request until the test lets it go.
    ServerOptions options;
    options.name = "c";
    options.io_threads = 1;
    Server c(options);
    auto c_handled = std::make_shared<std::atomic<uint64_t>>(0);
    std::promise<void> gate;
    std::shared_future<void> opened = gate.get_future().share();
    std::atomic<bool> held{false};
    c.RegisterHandler(kEchoMethod, [c_handled](const CallContext&, std::string_view payload) {
      c_handled->fetch_add(1);
      std::this_thread::sleep_for(std::chrono::microseconds(500));
      return Reply{Status::Ok(), std::string(payload)};
    });
    c.RegisterHandler("test.Hold", [opened, &held](const CallContext&, std::string_view) {
      held = true;
      opened.wait_for(std::chrono::seconds(10));
      return Reply{Status::Ok(), "released"};
    });
    QVERIFY(c.Start().ok());

    LoadRig rig({a.server->endpoint(), b.server->endpoint(), c.endpoint()}, 3, 32, 6);
    QCOMPARE(rig.ready, 3);
    // A request in flight on c when the drain starts.
    Client holder(FastClientOptions({c.endpoint()}, 1));
    QVERIFY(holder.Start().ok());
    QVERIFY(holder.WaitForPool(1, std::chrono::seconds(5)));
    std::promise<CallResult> held_result;
    holder.AsyncCall("test.Hold", "", [&](CallResult&& r) { held_result.set_value(std::move(r)); });
    QVERIFY(WaitUntil([&] { return held.load(); }));
    // The load reaches c too (waited for, not assumed after a fixed pause).
    QVERIFY(WaitUntil([&] { return c_handled->load() > 0; }, std::chrono::seconds(20)));

    c.EnterLameDuck();
    QCOMPARE(c.state(), ServerState::kLameDuck);
    // Clients drop their connections to c as soon as the push arrives.
    QVERIFY(WaitUntil([&] {
      for (auto& client : rig.clients) {
        if (!PooledSlots(*client, 2).empty()) return false;
      }
      return true;
    }));
    // Requests sent before a client heard still execute (the chapter's lame duck); once every
    // connection but the held one has closed, nothing new can arrive.
    QVERIFY(WaitUntil([&] { return c.SlotSnapshot().size() == 1; }));
    const uint64_t handled_after_drain = c_handled->load();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    QCOMPARE(c_handled->load(), handled_after_drain);  // No new request reached it.

    // The request that was in flight finishes normally.
    gate.set_value();
    auto future = held_result.get_future();
    QVERIFY(future.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
    const CallResult result = future.get();
    QVERIFY2(result.status.ok(), result.status.ToString().c_str());
    QCOMPARE(result.payload, std::string("released"));

    QVERIFY(rig.StopLoad());
    QVERIFY2(TotalFailed(rig.loads) == 0, FailureSummary(rig.loads).c_str());
    holder.Stop();
    c.Stop();
  }

  void lameDuckIsPushedAndRefusesNewWork() {
    TestServer server = StartTestServer("duck");
    RawConnection idle(server.server->port());
    QVERIFY(idle.Handshake(1));
    server.server->EnterLameDuck();
    // The idle connection hears about it without asking.
    const auto pushed = idle.ReadFrame();
    QVERIFY(pushed && pushed->has_state_change());
    QCOMPARE(pushed->state_change().state(), wire::SERVER_LAME_DUCK);
    // New handshakes are told; new requests get LAME_DUCK.
    RawConnection late(server.server->port());
    const auto welcome = late.Handshake(2);
    QVERIFY(welcome);
    QCOMPARE(welcome->state(), wire::SERVER_LAME_DUCK);
    wire::Frame request;
    request.mutable_request()->set_id(9);
    request.mutable_request()->set_method(kEchoMethod);
    late.SendFrame(request);
    const auto response = late.ReadFrame();
    QVERIFY(response && response->has_response());
    QCOMPARE(response->response().code(), wire::LAME_DUCK);
    QCOMPARE(*server.handled, uint64_t{0});
    // And undrain.
    server.server->LeaveLameDuck();
    const auto back = idle.ReadFrame();
    QVERIFY(back && back->has_state_change());
    QCOMPARE(back->state_change().state(), wire::SERVER_SERVING);
    late.SendFrame(request);
    std::optional<wire::Frame> served = late.ReadFrame();
    if (served && served->has_state_change()) served = late.ReadFrame();  // The undrain push.
    QVERIFY(served && served->has_response());
    QCOMPARE(served->response().code(), wire::OK);
  }

  void sigtermDrainsAndExitsCleanly() {
    ServerProcess a("a", 300), b("b", 300, 3000);
    QVERIFY(a.port() && b.port());
    LoadRig rig({a.endpoint(), b.endpoint()}, 2, 32, 6);
    QCOMPARE(rig.ready, 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    b.process().terminate();  // SIGTERM.
    QVERIFY(b.process().waitForFinished(10000));
    QCOMPARE(b.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(b.process().exitCode(), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // Load runs on without b.
    QVERIFY(rig.StopLoad());
    QVERIFY2(TotalFailed(rig.loads) == 0, FailureSummary(rig.loads).c_str());
    // Each client lets b's connections go once it hears of the drain or the close.
    for (auto& client : rig.clients) {
      QVERIFY(WaitUntil([&] { return PooledSlots(*client, 1).empty(); }, std::chrono::seconds(20)));
    }
  }
};

RAILYARD_QTEST_GUILESS_MAIN(FailoverTest)
#include "tst_failover.moc"
