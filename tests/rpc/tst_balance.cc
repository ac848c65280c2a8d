// Boxcar's load shifting: a server at half speed receives about half as many requests.
#include <QTest>
#include <thread>

#include "core/load/closed_loop_load.h"
#include "tests/rpc/rpc_test_support.h"

using namespace railyard::rpc;
using namespace railyard::rpc::testing;
using railyard::load::ClosedLoopLoad;

class BalanceTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void halfSpeedServerGetsAboutHalfTheRequests() {
    // Service times long enough to dwarf the per-request CPU cost even under sanitizers or a busy
    // machine: the servers' speed, not the CPU, must be what limits them.
    TestServer fast = StartTestServer("fast", std::chrono::milliseconds(10));
    TestServer slow = StartTestServer("slow", std::chrono::milliseconds(20));
    const std::vector<Endpoint> servers{fast.server->endpoint(), slow.server->endpoint()};

    std::vector<std::unique_ptr<Client>> clients;
    std::vector<std::unique_ptr<ClosedLoopLoad>> loads;
    // A loaded fleet: every pooled connection carries requests. The acquirers balance connection
    // counts between the servers through slot numbers, so the share each server gets follows its
    // speed rather than where a few clients' lowest slots happen to land.
    constexpr size_t kPool = 3;
    for (int i = 0; i < 8; ++i) {
      ClientOptions options = FastClientOptions(servers, kPool);
      options.client_name = "load-" + std::to_string(i);
      clients.push_back(std::make_unique<Client>(options));
      QVERIFY(clients.back()->Start().ok());
      QVERIFY(clients.back()->WaitForPool(kPool, std::chrono::seconds(5)));
    }
    for (auto& client : clients) {
      loads.push_back(std::make_unique<ClosedLoopLoad>(*client, kEchoMethod, "x", kPool));
    }
    for (auto& load : loads) load->Start();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // Let the pools settle.
    const uint64_t fast_before = fast.handled->load();
    const uint64_t slow_before = slow.handled->load();
    std::this_thread::sleep_for(std::chrono::seconds(2));
    const double fast_count = static_cast<double>(fast.handled->load() - fast_before);
    const double slow_count = static_cast<double>(slow.handled->load() - slow_before);
    for (auto& load : loads) load->Stop();
    for (auto& load : loads) QVERIFY(load->WaitIdle(std::chrono::seconds(5)));

    uint64_t failed = 0;
    for (auto& load : loads) failed += load->failed();
    QCOMPARE(failed, uint64_t{0});
    QVERIFY(fast_count > 500);
    const double ratio = slow_count / fast_count;
    qInfo("half-speed server: %.0f requests, full-speed server: %.0f, ratio %.2f (seed: ~0.5)",
          slow_count, fast_count, ratio);
    // A wide band: the seed promises "half, on average", not an exact split.
    QVERIFY2(ratio > 0.3 && ratio < 0.75, qPrintable(QString("ratio %1").arg(ratio)));
  }
};

QTEST_GUILESS_MAIN(BalanceTest)
#include "tst_balance.moc"
