// SPDX-License-Identifier: Apache-2.0
// The one telemetry poller: a round reports every node it has news of (a snapshot, or why not),
// is not held up by a node that refuses connections, backs an unreachable node off, takes a new
// token without disturbing the others, pauses a node whose token is refused (where asked to) until
// it gets a token, and Cancel releases a round that is waiting for a slow answer.
#include <QTest>
#include <atomic>
#include <future>
#include <thread>

#include "core/cluster/admin_methods.h"
#include "core/cluster/telemetry_poller.h"
#include "core/node/admin_service.h"
#include "tests/support/qtest_main.h"
#include "tests/support/thread_count.h"

using namespace railyard;
using namespace std::chrono_literals;

namespace {

// An admin service answering telemetry named `name`; `answer_delay_ms` holds each answer back.
class FakeNode {
 public:
  FakeNode(std::string name, std::vector<std::string> viewer_tokens = {}) : name_(std::move(name)) {
    node::AdminOptions options;
    options.name = name_;
    options.viewer_tokens = std::move(viewer_tokens);
    service_ = std::make_unique<node::AdminService>(
        options,
        [this] {
          if (answer_delay_ms.load() > 0) held.fetch_add(1);
          for (int i = 0; i < 200 && answer_delay_ms.load() > 0; ++i) {
            std::this_thread::sleep_for(10ms);  // Bounded: at most 2 s, then it answers.
          }
          admin::Telemetry t;
          t.set_node(name_);
          return t;
        },
        node::AdminCommands{});
    started = service_->Start();
  }
  rpc::Endpoint endpoint() const { return service_->endpoint(); }

  rpc::Status started;
  std::atomic<int> answer_delay_ms{0};
  std::atomic<int> held{0};  // Answers that began while answer_delay_ms was set.

 private:
  const std::string name_;
  std::unique_ptr<node::AdminService> service_;
};

// A loopback port nothing listens on: bound once by a service that has stopped since.
rpc::Endpoint ClosedPort() {
  FakeNode gone("gone");
  return gone.endpoint();
}

cluster::PollerOptions CtlOptions() {
  cluster::PollerOptions options;
  options.wait_for_connect = true;
  options.connect_timeout = 3s;
  options.answer_timeout = 3s;
  options.backoff_min = 30s;  // Long: a node that failed stays backed off for this test.
  return options;
}

const cluster::PollResult* Find(const std::vector<cluster::PollResult>& results, int id) {
  for (const cluster::PollResult& r : results) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

}  // namespace

class PollerTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The nodes' admin clients share the poller's few I/O threads (PollerOptions::io_threads), so
  // watching many nodes does not start a thread for each.
  void theNodesShareThePollersIoThreads() {
    std::vector<std::unique_ptr<FakeNode>> nodes;
    std::vector<cluster::PollTarget> targets;
    for (int i = 0; i < 12; ++i) {
      nodes.push_back(std::make_unique<FakeNode>("node" + std::to_string(i)));
      QVERIFY(nodes.back()->started.ok());
      targets.push_back({i, nodes.back()->endpoint(), "", std::nullopt});
    }
    const size_t before = railyard::testing::ThreadCount();
    {
      cluster::TelemetryPoller poller(targets, CtlOptions());
      const std::vector<cluster::PollResult> results = poller.PollRound();
      QCOMPARE(results.size(), targets.size());
      for (const cluster::PollResult& r : results) {
        QVERIFY2(r.status.ok(), r.status.message().c_str());
        QCOMPARE(r.telemetry->node(), "node" + std::to_string(r.id));
      }
      QCOMPARE(railyard::testing::ThreadCount(), before + CtlOptions().io_threads);
    }
    QCOMPARE(railyard::testing::ThreadCountOnceItIs(before), before);
  }

  void aRoundReportsEveryNodeAndBacksOffTheUnreachable() {
    FakeNode a("a"), b("b");
    QVERIFY(a.started.ok() && b.started.ok());
    const rpc::Endpoint closed = ClosedPort();
    cluster::TelemetryPoller poller({{1, a.endpoint(), "", std::nullopt},
                                     {2, b.endpoint(), "", std::nullopt},
                                     {3, closed, "", std::nullopt}},
                                    CtlOptions());
    std::vector<cluster::PollResult> round = poller.PollRound();
    QCOMPARE(round.size(), size_t{3});
    QCOMPARE(Find(round, 1)->telemetry->node(), std::string("a"));
    QCOMPARE(Find(round, 2)->telemetry->node(), std::string("b"));
    const cluster::PollResult* dead = Find(round, 3);
    QCOMPARE(dead->status.code(), rpc::Code::kUnavailable);
    QVERIFY2(dead->status.message().find(closed.ToString()) != std::string::npos,
             dead->status.message().c_str());
    QVERIFY(!dead->telemetry);
    // The next round asks the live ones again and leaves the dead one to its backoff.
    round = poller.PollRound();
    QCOMPARE(round.size(), size_t{2});
    QVERIFY(!Find(round, 3));
  }

  // railyardctl's rounds wait for the connections they start, but a refused one is news at once:
  // a round that waited out the connect timeout for a node that is down held up every other
  // node's snapshot meanwhile, and `railyardctl record` missed another node's short outage.
  void aRefusedConnectionHoldsUpNoRound() {
    FakeNode a("a");
    QVERIFY(a.started.ok());
    cluster::PollerOptions options = CtlOptions();
    options.connect_timeout = 120s;  // Longer than this test's own timeout.
    cluster::TelemetryPoller poller(
        {{1, a.endpoint(), "", std::nullopt}, {2, ClosedPort(), "", std::nullopt}}, options);
    const std::vector<cluster::PollResult> round = poller.PollRound();
    QCOMPARE(round.size(), size_t{2});
    QCOMPARE(Find(round, 1)->telemetry->node(), std::string("a"));
    const cluster::PollResult* dead = Find(round, 2);
    QCOMPARE(dead->status.code(), rpc::Code::kUnavailable);
    QVERIFY2(dead->status.message().find("refused") != std::string::npos,
             dead->status.message().c_str());
  }

  void aRefusedTokenSaysSoAndANewTokenIsTaken() {
    FakeNode guarded("guarded", {"right"});
    QVERIFY(guarded.started.ok());
    cluster::PollerOptions options = CtlOptions();
    options.backoff_min = 1ms;  // Reconnect at once with the new token.
    cluster::TelemetryPoller poller({{0, guarded.endpoint(), "wrong", std::nullopt}}, options);
    std::vector<cluster::PollResult> round = poller.PollRound();
    QCOMPARE(round.size(), size_t{1});
    QCOMPARE(round[0].status.code(), rpc::Code::kUnauthenticated);
    poller.SetToken(0, "right");
    std::this_thread::sleep_for(5ms);  // Past the 1 ms backoff.
    round = poller.PollRound();
    QCOMPARE(round.size(), size_t{1});
    QVERIFY2(round[0].status.ok(), round[0].status.ToString().c_str());
  }

  void aRefusedTokenPausesTheNodeUntilATokenIsGiven() {
    FakeNode guarded("guarded", {"right"});
    FakeNode open("open");
    QVERIFY(guarded.started.ok() && open.started.ok());
    cluster::PollerOptions options = CtlOptions();
    options.backoff_min = 1ms;  // Without the pause it would be asked again every round.
    options.pause_on_refused_token = true;
    cluster::TelemetryPoller poller(
        {{0, guarded.endpoint(), "wrong", std::nullopt}, {1, open.endpoint(), "", std::nullopt}},
        options);
    std::vector<cluster::PollResult> round = poller.PollRound();
    const cluster::PollResult* refused = Find(round, 0);
    QVERIFY(refused);
    QVERIFY(refused->paused);
    QVERIFY(cluster::IsTokenRefused(refused->status));
    QVERIFY(!Find(round, 1)->paused);
    // Paused: left out of every later round (the other node is still asked).
    for (int i = 0; i < 5; ++i) {
      std::this_thread::sleep_for(5ms);
      round = poller.PollRound();
      QVERIFY(!Find(round, 0));
      QVERIFY(Find(round, 1) && Find(round, 1)->status.ok());
    }
    // Asked to try again (even with the same token): it is asked, and refused once more.
    poller.SetToken(0, "wrong");
    round = poller.PollRound();
    QVERIFY(Find(round, 0) && Find(round, 0)->paused);
    poller.SetToken(0, "right");
    round = poller.PollRound();
    QVERIFY(Find(round, 0));
    QVERIFY2(Find(round, 0)->status.ok(), Find(round, 0)->status.ToString().c_str());
  }

  void aLockedOutHostIsNotATokenRefusal() {
    QVERIFY(cluster::IsTokenRefused({rpc::Code::kUnauthenticated, "the admin token is not valid"}));
    QVERIFY(!cluster::IsTokenRefused(
        {rpc::Code::kUnauthenticated,
         std::string(cluster::admin_methods::kLockedOutReason) + "; try again in 1000 ms"}));
    QVERIFY(!cluster::IsTokenRefused({rpc::Code::kUnavailable, "cannot reach"}));
  }

  void cancelReleasesARoundWaitingForAnAnswer() {
    FakeNode slow("slow");
    QVERIFY(slow.started.ok());
    cluster::PollerOptions options = CtlOptions();
    options.answer_timeout = 60s;  // Without Cancel the round would wait this long.
    cluster::TelemetryPoller poller({{0, slow.endpoint(), "", std::nullopt}}, options);
    QCOMPARE(poller.PollRound().size(), size_t{1});  // Connected and answering.
    slow.answer_delay_ms = 2000;
    auto round = std::async(std::launch::async, [&] { return poller.PollRound(); });
    // Let the round ask: cancelled only once the node is holding its answer (waited for, as a
    // loaded machine may take longer than any fixed pause to get there).
    for (int i = 0; i < 10000 && slow.held.load() == 0; ++i) std::this_thread::sleep_for(2ms);
    QVERIFY(slow.held.load() > 0);
    poller.Cancel();
    QCOMPARE(round.wait_for(10s), std::future_status::ready);
    const std::vector<cluster::PollResult> results = round.get();
    for (const cluster::PollResult& r : results) QVERIFY(!r.status.ok());  // No snapshot came.
    QVERIFY(poller.PollRound().empty());                                   // Cancelled for good.
    slow.answer_delay_ms = 0;
  }
};

RAILYARD_QTEST_GUILESS_MAIN(PollerTest)
#include "tst_poller.moc"
