// SPDX-License-Identifier: Apache-2.0
// Boxcar's load shifting: "servers that are running at half speed will receive half as many
// requests, on average". The lowest-slot rule does that on its own: each request takes the idle
// connection with the lowest slot, so a connection whose answer came back soon is the one reused,
// and a slow server's connections, busy longer, carry fewer requests. Round robin, with the same
// pool and load, sends both servers the same number.
#include <QTest>
#include <optional>

#include "core/load/closed_loop_load.h"
#include "tests/rpc/rpc_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::rpc;
using namespace railyard::rpc::testing;
using railyard::balance::PolicyKind;
using railyard::balance::PolicyOptions;
using railyard::load::ClosedLoopLoad;

namespace {

// Requests counted once the pool has settled and the load is running.
constexpr uint64_t kWarmUp = 40;
constexpr uint64_t kCounted = 400;

// Half-speed server's requests over the full-speed one's, for one client with `balance` (nullopt:
// the client's default, lowest slot comparing the two best slots' cost) keeping half its pool busy:
// 4 calls in flight on 8 connections, slots 0 to 3 on each server. With idle connections to both
// servers on every pick, the selection rule alone decides where each request goes.
double HalfSpeedShare(std::optional<PolicyOptions> balance) {
  // Service times long enough to dwarf the per-request CPU cost even under sanitizers or a busy
  // machine: the servers' speed, not the CPU, must be what limits them.
  TestServer fast = StartTestServer("fast", std::chrono::milliseconds(10));
  TestServer slow = StartTestServer("slow", std::chrono::milliseconds(20));
  constexpr size_t kPool = 8, kInFlight = 4;
  ClientOptions options =
      FastClientOptions({fast.server->endpoint(), slow.server->endpoint()}, kPool);
  options.balance = balance;
  Client client(options);
  if (!client.Start().ok()) qFatal("client start");
  const std::vector<uint32_t> settled{0, 1, 2, 3};
  const bool pooled = WaitUntil(
      [&] { return PooledSlots(client, 0) == settled && PooledSlots(client, 1) == settled; });
  if (!pooled) qFatal("the pool did not settle on slots 0-3 of each server");

  ClosedLoopLoad load(client, kEchoMethod, "x", kInFlight);
  load.Start();
  const auto total = [&] { return fast.handled->load() + slow.handled->load(); };
  const bool warm = WaitUntil([&] { return total() >= kWarmUp; });
  const uint64_t fast_before = fast.handled->load(), slow_before = slow.handled->load();
  const bool counted =
      WaitUntil([&] { return total() >= kWarmUp + kCounted; }, std::chrono::seconds(30));
  const double fast_count = static_cast<double>(fast.handled->load() - fast_before);
  const double slow_count = static_cast<double>(slow.handled->load() - slow_before);
  load.Stop();
  if (!load.WaitIdle(std::chrono::seconds(5))) qFatal("load did not stop");
  if (!warm || !counted) qFatal("the load stalled");
  if (load.failed() != 0)
    qFatal("%llu calls failed", static_cast<unsigned long long>(load.failed()));
  const double ratio = slow_count / fast_count;
  qInfo("%s: half-speed server %.0f requests, full-speed server %.0f, ratio %.2f",
        client.Snapshot().policy.c_str(), slow_count, fast_count, ratio);
  return ratio;
}

}  // namespace

class BalanceTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void halfSpeedServerGetsAboutHalfTheRequests() {
    // The seed's rule alone: plain lowest slot, without the default's cost comparison.
    PolicyOptions plain;
    plain.kind = PolicyKind::kLowestSlot;
    plain.slot_choices = 1;
    const double ratio = HalfSpeedShare(plain);
    // A wide band: the seed promises "half, on average", not an exact split.
    QVERIFY2(ratio > 0.3 && ratio < 0.7, qPrintable(QString("ratio %1").arg(ratio)));
  }

  // The default also compares the two best slots' observed cost, so it moves more than the
  // seed's half away from the slow server (about a sixth here), never less.
  void theDefaultGivesTheHalfSpeedServerLessThanHalf() {
    const double ratio = HalfSpeedShare(std::nullopt);
    QVERIFY2(ratio < 0.5, qPrintable(QString("ratio %1").arg(ratio)));
  }

  // The same load under round robin: each server in turn, whatever its speed. It shows that the
  // test above measures the selection rule, not the servers' speed alone.
  void roundRobinGivesHalfSpeedServerAsManyRequests() {
    PolicyOptions round_robin;
    round_robin.kind = PolicyKind::kRoundRobin;
    const double ratio = HalfSpeedShare(round_robin);
    QVERIFY2(ratio > 0.85 && ratio < 1.15, qPrintable(QString("ratio %1").arg(ratio)));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(BalanceTest)
#include "tst_balance.moc"
