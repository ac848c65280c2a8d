// SPDX-License-Identifier: Apache-2.0
// ClusterState: the contract between sources and models (batches, unreachable, stale, clock,
// starting and token refused with since when, removing a node).
#include <QDateTime>
#include <QSignalSpy>
#include <QTest>

#include "tests/support/qtest_main.h"
#include "ui/models/cluster_state.h"
#include "ui/models/overview_model.h"

using railyard::admin::Telemetry;
using railyard::ui::ClusterState;
using railyard::ui::NodeHealth;
using railyard::ui::OverviewModel;

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
    QSignalSpy added(&state, &ClusterState::NodeAdded);
    QCOMPARE(state.AddNode("127.0.0.1:1"), 0);
    QCOMPARE(state.AddNode("127.0.0.1:2", "b"), 1);
    QCOMPARE(state.AddNode("127.0.0.1:1"), 0);
    QCOMPARE(added.count(), 2);
    QCOMPARE(state.Node(0).name, QString("127.0.0.1:1"));  // Address until telemetry names it.
    QCOMPARE(state.Node(0).health, NodeHealth::kConnecting);
    QCOMPARE(state.IndexOfName("b"), 1);
  }

  void aBatchIsOneFrameNamingTheChangedNodes() {
    ClusterState state;
    for (int i = 0; i < 4; ++i) state.AddNode(QString("h:%1").arg(i + 1));
    QSignalSpy frames(&state, &ClusterState::FrameApplied);
    state.ApplyFrame({{0, Make("a", 1)}, {2, Make("c", 1, true)}}, 1000);
    QCOMPARE(frames.count(), 1);
    const auto changed = frames.at(0).at(0).value<QVector<int>>();
    QCOMPARE(changed, (QVector<int>{0, 2}));
    QCOMPARE(state.Node(0).health, NodeHealth::kServing);
    QCOMPARE(state.Node(0).name, QString("a"));
    QCOMPARE(state.Node(2).health, NodeHealth::kLameDuck);
    QCOMPARE(state.Node(1).health, NodeHealth::kConnecting);
    QCOMPARE(state.NowMs(), 1000);
    QCOMPARE(state.Node(0).updated_ms, 1000);
  }

  void unreachableKeepsTheLastTelemetryAndTheReason() {
    ClusterState state;
    state.AddNode("h:1");
    state.ApplyFrame({{0, Make("a", 7)}}, 1000);
    state.ApplyFrame({{0, nullptr, "UNAVAILABLE: refused"}}, 1100);
    QCOMPARE(state.Node(0).health, NodeHealth::kUnreachable);
    QCOMPARE(state.Node(0).last_error, QString("UNAVAILABLE: refused"));
    QVERIFY(state.Node(0).telemetry);
    QCOMPARE(state.Node(0).telemetry->sequence(), 7u);
    QCOMPARE(state.Node(0).updated_ms, 1000);  // The last news, not the failed poll.
    state.ApplyFrame({{0, Make("a", 8)}}, 1200);
    QCOMPARE(state.Node(0).health, NodeHealth::kServing);
    QVERIFY(state.Node(0).last_error.isEmpty());
  }

  void silentNodesGoStaleAndAreReported() {
    ClusterState state;
    state.SetStaleAfterMs(500);
    state.AddNode("h:1");
    state.AddNode("h:2");
    state.ApplyFrame({{0, Make("a", 1)}, {1, Make("b", 1)}}, 1000);
    QSignalSpy frames(&state, &ClusterState::FrameApplied);
    state.ApplyFrame({{1, Make("b", 2)}}, 1400);
    QCOMPARE(state.Node(0).health, NodeHealth::kServing);  // 400 ms: not yet.
    state.Tick(1501);
    QCOMPARE(state.Node(0).health, NodeHealth::kStale);
    QCOMPARE(state.Node(1).health, NodeHealth::kServing);
    QCOMPARE(frames.count(), 2);
    QCOMPARE(frames.at(1).at(0).value<QVector<int>>(), QVector<int>{0});
    // An unreachable node is not "stale": it says why.
    state.ApplyFrame({{1, nullptr, "down"}}, 1600);
    state.Tick(5000);
    QCOMPARE(state.Node(1).health, NodeHealth::kUnreachable);
  }

  // A replay of a flight recorder's past (railyardctl record --since): a downsampled snapshot
  // stands for its 10 s bucket, so the node is not stale between two of them, and is once the
  // next bucket's does not come.
  void aDownsampledSnapshotIsFreshForItsBucket() {
    ClusterState state;
    state.SetStaleAfterMs(5000);
    state.AddNode("h:1");
    auto bucket = std::make_shared<Telemetry>(*Make("a", 1));
    bucket->mutable_downsampled()->set_bucket_ms(10'000);
    state.ApplyFrame({{0, bucket, {}, 10'000}}, 10'000);
    state.Tick(19'900);  // The next bucket's snapshot is due at 20 s.
    QCOMPARE(state.Node(0).health, NodeHealth::kServing);
    state.Tick(25'001);  // It did not come: stale, as a full snapshot is after 5 s.
    QCOMPARE(state.Node(0).health, NodeHealth::kStale);
    // A full snapshot gets the usual allowance.
    state.ApplyFrame({{0, Make("a", 2), {}, 30'000}}, 30'000);
    state.Tick(35'001);
    QCOMPARE(state.Node(0).health, NodeHealth::kStale);
  }

  void anUpdateMayCarryItsOwnTime() {
    ClusterState state;
    state.SetStaleAfterMs(1000);
    state.AddNode("h:1");
    ClusterState::Update u{0, Make("a", 1), {}, 500};
    state.ApplyFrame({u}, 3000);  // A replay seek: the snapshot is 2.5 s old.
    QCOMPARE(state.Node(0).updated_ms, 500);
    QCOMPARE(state.Node(0).health, NodeHealth::kStale);
  }

  void theClockNeverRunsBackwards() {
    ClusterState state;
    state.Tick(2000);
    state.Tick(1000);
    QCOMPARE(state.NowMs(), 2000);
  }

  void clearForgetsEverything() {
    ClusterState state;
    state.AddNode("h:1");
    state.ApplyFrame({{0, Make("a", 1)}}, 1000);
    QSignalSpy reset(&state, &ClusterState::NodesReset);
    state.Clear();
    QCOMPARE(reset.count(), 1);
    QCOMPARE(state.NodeCount(), 0);
    QCOMPARE(state.NowMs(), 0);
    // Out-of-range updates are ignored, not a crash.
    state.ApplyFrame({{3, Make("x", 1)}}, 10);
    QCOMPARE(state.NodeCount(), 0);
  }

  void everyStateSaysWhyAndSinceWhen() {
    ClusterState state;
    state.SetStaleAfterMs(500);
    for (int i = 0; i < 3; ++i) state.AddNode(QString("h:%1").arg(i + 1));
    auto starting = std::make_shared<Telemetry>(*Make("s", 1));
    starting->set_state(railyard::admin::NODE_STARTING);
    state.ApplyFrame({{0, starting},
                      {1, nullptr, "UNAUTHENTICATED: the admin token is not valid", 0, true},
                      {2, Make("c", 1)}},
                     1000);
    QCOMPARE(state.Node(0).health, NodeHealth::kStarting);
    QCOMPARE(state.Node(1).health, NodeHealth::kTokenRefused);
    QCOMPARE(state.Node(1).down_since_ms, 1000);
    OverviewModel model(&state);
    QCOMPARE(model.index(0, OverviewModel::kState).data().toString(), QString("starting"));
    QCOMPARE(model.index(1, OverviewModel::kState).data().toString(), QString("token refused"));
    QVERIFY(model.index(1, OverviewModel::kState)
                .data(Qt::ToolTipRole)
                .toString()
                .contains("the admin token is not valid"));
    // Stale since its last telemetry, which the state cell names.
    state.Tick(2000);
    QCOMPARE(state.Node(2).health, NodeHealth::kStale);
    QCOMPARE(state.Node(2).down_since_ms, 1000);
    const QString stale = model.index(2, OverviewModel::kState).data().toString();
    QCOMPARE(
        stale,
        QString("stale since %1").arg(QDateTime::fromMSecsSinceEpoch(1000).toString("HH:mm:ss")));
    // Fresh telemetry clears it.
    state.ApplyFrame({{2, Make("c", 2)}}, 2100);
    QCOMPARE(state.Node(2).down_since_ms, 0);
  }

  void removingANodeRebuildsTheRest() {
    ClusterState state;
    for (int i = 0; i < 3; ++i) state.AddNode(QString("h:%1").arg(i + 1));
    state.ApplyFrame({{0, Make("a", 1)}, {1, Make("b", 1)}, {2, Make("c", 1)}}, 1000);
    OverviewModel model(&state);
    QSignalSpy reset(&state, &ClusterState::NodesReset);
    QSignalSpy frames(&state, &ClusterState::FrameApplied);
    state.RemoveNode(1);
    QCOMPARE(state.NodeCount(), 2);
    QCOMPARE(state.Node(1).name, QString("c"));
    QCOMPARE(state.IndexOfAddress("h:3"), 1);
    QCOMPARE(reset.count(), 1);
    QCOMPARE(frames.at(0).at(0).value<QVector<int>>(), (QVector<int>{0, 1}));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(1, OverviewModel::kName).data().toString(), QString("c"));
    state.RemoveNode(5);  // Out of range: nothing.
    QCOMPARE(state.NodeCount(), 2);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ClusterStateTest)
#include "tst_cluster_state.moc"
