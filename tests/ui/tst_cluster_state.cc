// ClusterState: the contract between sources and models (batches, unreachable, stale, clock).
#include <QSignalSpy>
#include <QTest>

#include "ui/models/cluster_state.h"

using railyard::admin::Telemetry;
using railyard::ui::ClusterState;
using railyard::ui::NodeHealth;

namespace {

std::shared_ptr<const Telemetry> Make(const char* name, uint64_t sequence, bool lame = false) {
  auto t = std::make_shared<Telemetry>();
  t->set_node(name);
  t->set_sequence(sequence);
  t->set_state(lame ? railyard::admin::NODE_LAME_DUCK : railyard::admin::NODE_SERVING);
  return t;
}

}  // namespace

class ClusterStateTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void addressesAreDeduplicated() {
    ClusterState state;
    QSignalSpy added(&state, &ClusterState::nodeAdded);
    QCOMPARE(state.addNode("127.0.0.1:1"), 0);
    QCOMPARE(state.addNode("127.0.0.1:2", "b"), 1);
    QCOMPARE(state.addNode("127.0.0.1:1"), 0);
    QCOMPARE(added.count(), 2);
    QCOMPARE(state.node(0).name, QString("127.0.0.1:1"));  // Address until telemetry names it.
    QCOMPARE(state.node(0).health, NodeHealth::kConnecting);
    QCOMPARE(state.indexOfName("b"), 1);
  }

  void aBatchIsOneFrameNamingTheChangedNodes() {
    ClusterState state;
    for (int i = 0; i < 4; ++i) state.addNode(QString("h:%1").arg(i + 1));
    QSignalSpy frames(&state, &ClusterState::frameApplied);
    state.applyFrame({{0, Make("a", 1)}, {2, Make("c", 1, true)}}, 1000);
    QCOMPARE(frames.count(), 1);
    const auto changed = frames.at(0).at(0).value<QVector<int>>();
    QCOMPARE(changed, (QVector<int>{0, 2}));
    QCOMPARE(state.node(0).health, NodeHealth::kServing);
    QCOMPARE(state.node(0).name, QString("a"));
    QCOMPARE(state.node(2).health, NodeHealth::kLameDuck);
    QCOMPARE(state.node(1).health, NodeHealth::kConnecting);
    QCOMPARE(state.nowMs(), 1000);
    QCOMPARE(state.node(0).updated_ms, 1000);
  }

  void unreachableKeepsTheLastTelemetryAndTheReason() {
    ClusterState state;
    state.addNode("h:1");
    state.applyFrame({{0, Make("a", 7)}}, 1000);
    state.applyFrame({{0, nullptr, "UNAVAILABLE: refused"}}, 1100);
    QCOMPARE(state.node(0).health, NodeHealth::kUnreachable);
    QCOMPARE(state.node(0).last_error, QString("UNAVAILABLE: refused"));
    QVERIFY(state.node(0).telemetry);
    QCOMPARE(state.node(0).telemetry->sequence(), 7u);
    QCOMPARE(state.node(0).updated_ms, 1000);  // The last news, not the failed poll.
    state.applyFrame({{0, Make("a", 8)}}, 1200);
    QCOMPARE(state.node(0).health, NodeHealth::kServing);
    QVERIFY(state.node(0).last_error.isEmpty());
  }

  void silentNodesGoStaleAndAreReported() {
    ClusterState state;
    state.setStaleAfterMs(500);
    state.addNode("h:1");
    state.addNode("h:2");
    state.applyFrame({{0, Make("a", 1)}, {1, Make("b", 1)}}, 1000);
    QSignalSpy frames(&state, &ClusterState::frameApplied);
    state.applyFrame({{1, Make("b", 2)}}, 1400);
    QCOMPARE(state.node(0).health, NodeHealth::kServing);  // 400 ms: not yet.
    state.tick(1501);
    QCOMPARE(state.node(0).health, NodeHealth::kStale);
    QCOMPARE(state.node(1).health, NodeHealth::kServing);
    QCOMPARE(frames.count(), 2);
    QCOMPARE(frames.at(1).at(0).value<QVector<int>>(), QVector<int>{0});
    // An unreachable node is not "stale": it says why.
    state.applyFrame({{1, nullptr, "down"}}, 1600);
    state.tick(5000);
    QCOMPARE(state.node(1).health, NodeHealth::kUnreachable);
  }

  void anUpdateMayCarryItsOwnTime() {
    ClusterState state;
    state.setStaleAfterMs(1000);
    state.addNode("h:1");
    ClusterState::Update u{0, Make("a", 1), {}, 500};
    state.applyFrame({u}, 3000);  // A replay seek: the snapshot is 2.5 s old.
    QCOMPARE(state.node(0).updated_ms, 500);
    QCOMPARE(state.node(0).health, NodeHealth::kStale);
  }

  void theClockNeverRunsBackwards() {
    ClusterState state;
    state.tick(2000);
    state.tick(1000);
    QCOMPARE(state.nowMs(), 2000);
  }

  void clearForgetsEverything() {
    ClusterState state;
    state.addNode("h:1");
    state.applyFrame({{0, Make("a", 1)}}, 1000);
    QSignalSpy reset(&state, &ClusterState::nodesReset);
    state.clear();
    QCOMPARE(reset.count(), 1);
    QCOMPARE(state.nodeCount(), 0);
    QCOMPARE(state.nowMs(), 0);
    // Out-of-range updates are ignored, not a crash.
    state.applyFrame({{3, Make("x", 1)}}, 10);
    QCOMPARE(state.nodeCount(), 0);
  }
};

QTEST_GUILESS_MAIN(ClusterStateTest)
#include "tst_cluster_state.moc"
