// SPDX-License-Identifier: Apache-2.0
// LiveSource against a real node on 127.0.0.1: a console that has heard nothing yet opens with
// the node's past from its flight recorder; telemetry arrives through the worker thread;
// a stopped node turns unreachable without blocking the GUI thread and comes back when it is
// restarted on the same port; a wrong token is refused (and announced); Stop() drops batches in
// flight.
#include <QDateTime>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <climits>
#include <vector>

#include "core/cluster/admin_client.h"
#include "core/node/node.h"
#include "tests/support/admin_tokens.h"
#include "tests/support/flight_history.h"
#include "tests/support/qtest_main.h"
#include "tests/support/wait_until.h"
#include "tests/ui/loaded_node.h"
#include "ui/models/cluster_state.h"
#include "ui/models/throughput_model.h"
#include "ui/sources/history_frames.h"
#include "ui/sources/live_source.h"

using railyard::testing::kOperatorToken;
using railyard::testing::kViewerToken;
using railyard::ui::ClusterState;
using railyard::ui::LiveSource;
using railyard::ui::NodeHealth;
using railyard::ui::ThroughputEvent;
using railyard::ui::ThroughputModel;

namespace {

std::unique_ptr<railyard::node::Node> OpenNode(const QString& dir, uint16_t admin_port,
                                               int flight_interval_ms = 1000) {
  railyard::node::NodeOptions options;
  options.flight.interval = std::chrono::milliseconds(flight_interval_ms);
  options.admin.operator_tokens = {kOperatorToken};
  options.name = "live1";
  options.data_dir = dir.toStdString();
  options.io_threads = 1;
  options.worker_threads = 1;
  options.admin.port = admin_port;
  options.admin.viewer_tokens = {kViewerToken};
  std::unique_ptr<railyard::node::Node> node;
  if (!railyard::node::Node::Open(options, &node).ok()) return nullptr;
  return node;
}

std::vector<qint64> HistoryTimes(railyard::node::Node& node) {
  return railyard::testing::FlightRecorderTimes(node.admin_endpoint(), kViewerToken);
}

bool HasEventBefore(const ThroughputModel& model, const QString& command, qint64 before_ms) {
  for (const ThroughputEvent& e : model.Events(0, LLONG_MIN, before_ms)) {
    if (e.command == command) return true;
  }
  return false;
}

LiveSource::Options FastOptions() {
  LiveSource::Options o;
  o.poll_hz = 20;
  o.backoff_min = std::chrono::milliseconds(50);
  o.backoff_max = std::chrono::milliseconds(400);
  o.connect_timeout = std::chrono::milliseconds(500);
  o.answer_timeout = std::chrono::milliseconds(500);
  return o;
}

// Waits until `node`'s recorder spans at least `ms`.
bool RecordedFor(railyard::node::Node& node, qint64 ms) {
  return railyard::testing::WaitUntil([&] {
    const std::vector<qint64> times = HistoryTimes(node);
    return times.size() >= 2 && times.back() - times.front() >= ms;
  });
}

// FastOptions whose backfill's recent stretch is the last 600 ms: the rest is the day behind.
LiveSource::Options ShortRecentPast() {
  LiveSource::Options options = FastOptions();
  options.backfill_span = std::chrono::milliseconds(600);
  return options;
}

}  // namespace

class LiveSourceTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void telemetryArrivesAndNodesComeBack() {
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> node = OpenNode(dir.filePath("n"), 0);
    QVERIFY(node);
    const uint16_t admin_port = node->admin_endpoint().port;
    const QString address = QString("127.0.0.1:%1").arg(admin_port);

    ClusterState state;
    LiveSource source(&state);
    source.SetOptions(FastOptions());
    QString error;
    QCOMPARE(source.AddNode(address, kViewerToken, &error), 0);
    source.Start();
    QTRY_VERIFY_WITH_TIMEOUT(state.Node(0).health == NodeHealth::kServing, 10000);
    QVERIFY(state.Node(0).telemetry);
    QCOMPARE(state.Node(0).name, QString("live1"));
    QCOMPARE(QString::fromStdString(state.Node(0).telemetry->admin_address()), address);
    // Polls keep coming, one batch each.
    const uint64_t sequence = state.Node(0).telemetry->sequence();
    QTRY_VERIFY_WITH_TIMEOUT(state.Node(0).telemetry->sequence() > sequence + 2, 10000);

    // Stopped: unreachable, with a reason, and the event loop keeps turning meanwhile.
    node->Shutdown(std::chrono::milliseconds(200));
    node.reset();
    QTRY_VERIFY_WITH_TIMEOUT(state.Node(0).health == NodeHealth::kUnreachable, 10000);
    QVERIFY(!state.Node(0).last_error.isEmpty());
    QVERIFY(state.Node(0).telemetry);  // The last known figures stay visible.
    QElapsedTimer loop;
    loop.start();
    int turns = 0;
    while (loop.elapsed() < 300) {
      QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
      ++turns;
    }
    QVERIFY(turns > 3);

    // Restarted on the same admin port: back, with fresh telemetry.
    node = OpenNode(dir.filePath("n"), admin_port);
    QVERIFY2(node, "could not reopen the node on its port");
    QTRY_VERIFY_WITH_TIMEOUT(state.Node(0).health == NodeHealth::kServing, 15000);
    QVERIFY(state.Node(0).last_error.isEmpty());
    source.Stop();
    node->Shutdown(std::chrono::milliseconds(200));
  }

  // A console that has heard nothing yet opens with the node's own past from its flight recorder
  // (docs/guide.md, "The flight recorder"): samples from before it started, the gap where the node
  // was down, its restart, and a drain and undrain someone else ran; then live polling goes on.
  void aNewConsoleOpensWithTheNodesPast() {
    QTemporaryDir dir;
    const QString data = dir.filePath("n");
    qint64 down_from = 0;
    {
      std::unique_ptr<railyard::node::Node> node = OpenNode(data, 0, 20);
      QVERIFY(node);
      railyard::cluster::AdminClient op(node->admin_endpoint(), kOperatorToken, "someone else");
      QVERIFY(op.Connect(std::chrono::seconds(5)).ok());
      railyard::admin::AdminResponse response;
      QVERIFY(op.Drain(&response).ok());
      QVERIFY(op.Undrain(&response).ok());
      const qint64 undrained = QDateTime::currentMSecsSinceEpoch();
      // Recorded past the undrain, so that a snapshot carries both commands.
      QVERIFY(railyard::testing::WaitUntil([&] {
        const std::vector<qint64> times = HistoryTimes(*node);
        return times.size() >= 20 && times.back() > undrained + 100;
      }));
      down_from = HistoryTimes(*node).back();
      node->Shutdown(std::chrono::milliseconds(0));
    }
    // Down well past the stale allowance this console uses (300 ms, below).
    QVERIFY(railyard::testing::WaitUntil(
        [&] { return QDateTime::currentMSecsSinceEpoch() > down_from + 1500; }));
    std::unique_ptr<railyard::node::Node> node = OpenNode(data, 0, 20);
    QVERIFY(node);
    qint64 up_from = 0;
    QVERIFY(railyard::testing::WaitUntil([&] {
      const std::vector<qint64> times = HistoryTimes(*node);
      const auto after = std::upper_bound(times.begin(), times.end(), down_from + 1000);
      if (after != times.end()) up_from = *after;
      return times.end() - after >= 10;
    }));

    const qint64 opened = QDateTime::currentMSecsSinceEpoch();
    ClusterState state;
    state.SetStaleAfterMs(300);
    ThroughputModel throughput(&state);
    LiveSource source(&state);
    source.SetOptions(FastOptions());
    QSignalSpy backfilled(&source, &LiveSource::Backfilled);
    QCOMPARE(source.AddNode(QString("127.0.0.1:%1").arg(node->admin_endpoint().port), kViewerToken),
             0);
    source.Start();
    QVERIFY(backfilled.wait(10000));
    QCOMPARE(backfilled.at(0).at(0).toInt(), 1);
    QVERIFY(backfilled.at(0).at(1).toLongLong() >= 30);
    QVERIFY(backfilled.at(0).at(2).toLongLong() < down_from);
    const ThroughputModel::Series& series = throughput.series(0);
    QVERIFY(!series.empty());
    QVERIFY(series.front().t_ms < down_from);
    bool gap = false;  // From the last snapshot before the node went down.
    for (size_t i = 0; i < series.size(); ++i) {
      gap = gap || (series[i].IsGap() && series[i].t_ms >= down_from && series[i].t_ms < up_from);
    }
    QVERIFY2(gap, "no gap where the node was down");
    for (const QString& event : {ThroughputEvent::kDown, ThroughputEvent::kUp,
                                 ThroughputEvent::kRestart, QString("drain"), QString("undrain")}) {
      QVERIFY2(HasEventBefore(throughput, event, opened), qPrintable(event));
    }
    // Then live, after the past.
    QTRY_VERIFY_WITH_TIMEOUT(source.FramesApplied() > 0 && series.back().t_ms >= opened, 10000);
    QCOMPARE(state.Node(0).health, NodeHealth::kServing);
    source.Stop();
    node->Shutdown(std::chrono::milliseconds(0));
  }

  // Two nodes' pasts become frames in time order, one node's latest snapshot winning within a
  // frame, with empty frames through a silence so that the state marks the silent nodes stale.
  void historyFramesMergeNodesInTimeOrder() {
    auto at = [](qint64 ms, uint64_t sequence) {
      auto t = std::make_shared<railyard::admin::Telemetry>();
      t->set_unix_ms(ms);
      t->set_sequence(sequence);
      return std::shared_ptr<const railyard::admin::Telemetry>(std::move(t));
    };
    std::vector<railyard::ui::NodeHistory> pasts(2);
    pasts[0].node = 0;
    pasts[0].snapshots = {at(1000, 1), at(1040, 2), at(1100, 3), at(3000, 4)};
    pasts[1].node = 1;
    pasts[1].snapshots = {at(1020, 7), at(1120, 8)};
    const std::vector<railyard::ui::HistoryFrame> frames =
        railyard::ui::HistoryFrames(pasts, 100, 500, 3200);
    QVERIFY(frames.size() >= 3);
    // [1000, 1100): node 0's second snapshot wins over its first; node 1's first.
    QCOMPARE(frames[0].updates.size(), size_t{2});
    QCOMPARE(frames[0].updates[0].telemetry->sequence(), uint64_t{2});
    QCOMPARE(frames[0].updates[0].at_ms, qint64{1040});
    QCOMPARE(frames[0].updates[1].telemetry->sequence(), uint64_t{7});
    QCOMPARE(frames[0].now_ms, qint64{1040});
    QCOMPARE(frames[1].updates.size(), size_t{2});  // 1100 and 1120.
    // Then silence to 3000, an empty frame each 500 ms past the stale allowance; then 3000; then
    // silence to 3200 (too short for another).
    std::vector<qint64> empty;
    for (const auto& f : frames) {
      if (f.updates.empty()) empty.push_back(f.now_ms);
    }
    QCOMPARE(empty, (std::vector<qint64>{1621, 2121, 2621}));
    QCOMPARE(frames.back().now_ms, qint64{3000});
    for (size_t i = 1; i < frames.size(); ++i) QVERIFY(frames[i - 1].now_ms <= frames[i].now_ms);
    ClusterState state;
    state.AddNode("a:1");
    state.AddNode("b:1");
    state.SetStaleAfterMs(500);
    for (const auto& f : frames) state.ApplyHistoryFrame(f.updates, f.now_ms);
    QCOMPARE(state.Node(1).health, NodeHealth::kStale);  // Silent since 1120.
    QCOMPARE(state.Node(1).down_since_ms, qint64{1120});
    QVERIFY(IsLive(state.Node(0).health));
  }

  // A node added to a cluster already shown brings its own past, before its own series only:
  // the cluster's sums, taken without it, are not rewritten; the other node polls on meanwhile;
  // a restart of the source does not ask the same node again.
  void aNodeAddedLaterBringsItsOwnPast() {
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> first = OpenNode(dir.filePath("a"), 0, 20);
    std::unique_ptr<railyard::node::Node> later = OpenNode(dir.filePath("b"), 0, 20);
    QVERIFY(first && later);
    QVERIFY(railyard::testing::WaitUntil([&] { return HistoryTimes(*later).size() >= 30; }));
    const qint64 later_from = HistoryTimes(*later).front();

    ClusterState state;
    ThroughputModel throughput(&state);
    LiveSource source(&state);
    source.SetOptions(FastOptions());
    QSignalSpy backfilled(&source, &LiveSource::Backfilled);
    QCOMPARE(
        source.AddNode(QString("127.0.0.1:%1").arg(first->admin_endpoint().port), kViewerToken), 0);
    source.Start();
    QTRY_VERIFY_WITH_TIMEOUT(source.FramesApplied() > 3, 10000);
    const qint64 cluster_from = throughput.series(ThroughputModel::kCluster).front().t_ms;
    const qint64 first_from = throughput.series(0).front().t_ms;
    const int backfills = backfilled.count();

    const qint64 added = QDateTime::currentMSecsSinceEpoch();
    QCOMPARE(
        source.AddNode(QString("127.0.0.1:%1").arg(later->admin_endpoint().port), kViewerToken), 1);
    QTRY_VERIFY_WITH_TIMEOUT(backfilled.count() == backfills + 1, 10000);
    QCOMPARE(backfilled.last().at(0).toInt(), 1);
    const ThroughputModel::Series& series = throughput.series(1);
    QVERIFY(!series.empty());
    QVERIFY2(series.front().t_ms < added && series.front().t_ms >= later_from,
             qPrintable(QString("%1 (added %2, kept from %3)")
                            .arg(series.front().t_ms)
                            .arg(added)
                            .arg(later_from)));
    for (size_t i = 1; i < series.size(); ++i) QVERIFY(series[i - 1].t_ms <= series[i].t_ms);
    QCOMPARE(throughput.series(ThroughputModel::kCluster).front().t_ms, cluster_from);
    QCOMPARE(throughput.series(0).front().t_ms, first_from);
    QTRY_VERIFY_WITH_TIMEOUT(series.back().t_ms >= added, 10000);  // Then live.

    // Restarted (new options), the source asks nobody's past again.
    const quint64 frames = source.FramesApplied();
    source.SetOptions(FastOptions());
    QTRY_VERIFY_WITH_TIMEOUT(source.FramesApplied() > frames + 5, 10000);
    QCOMPARE(backfilled.count(), backfills + 1);
    // Removed, its series is gone; added again, it brings its past again.
    source.RemoveNode(1);
    const qint64 readded = QDateTime::currentMSecsSinceEpoch();
    QCOMPARE(
        source.AddNode(QString("127.0.0.1:%1").arg(later->admin_endpoint().port), kViewerToken), 1);
    QTRY_VERIFY_WITH_TIMEOUT(backfilled.count() == backfills + 2, 10000);
    QVERIFY(!throughput.series(1).empty());
    QVERIFY(throughput.series(1).front().t_ms < readded - 1000);
    source.Stop();
    first->Shutdown(std::chrono::milliseconds(0));
    later->Shutdown(std::chrono::milliseconds(0));
  }

  // A console that heard nothing for a while (stopped here; a suspended laptop or a stopped
  // console alike) while the node served on: on the node's next answer the console reads what
  // its recorder kept meanwhile and puts it into the hole, with the command someone ran there;
  // the chart shows the node serving throughout instead of a line across the silence.
  void aStretchTheConsoleMissedComesFromTheRecorder() {
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> node = OpenNode(dir.filePath("n"), 0, 20);
    QVERIFY(node);
    ClusterState state;
    state.SetStaleAfterMs(300);
    ThroughputModel throughput(&state);
    LiveSource source(&state);
    source.SetOptions(FastOptions());
    QSignalSpy filled(&source, &LiveSource::GapFilled);
    QCOMPARE(source.AddNode(QString("127.0.0.1:%1").arg(node->admin_endpoint().port), kViewerToken),
             0);
    source.Start();
    QTRY_VERIFY_WITH_TIMEOUT(source.FramesApplied() > 5, 10000);
    source.Stop();
    // The console's last news: its sample's time, or the snapshot's own where the node's clock
    // stamped it earlier than the console took it (the hole is read from the snapshot's).
    const qint64 silent_from =
        std::min<qint64>(throughput.series(0).back().t_ms, state.Node(0).telemetry->unix_ms());
    railyard::cluster::AdminClient op(node->admin_endpoint(), kOperatorToken, "someone else");
    QVERIFY(op.Connect(std::chrono::seconds(5)).ok());
    railyard::admin::AdminResponse response;
    QVERIFY(op.Drain(&response).ok());
    // Recorded well past the stale allowance, with the drain in a snapshot.
    const qint64 drained = QDateTime::currentMSecsSinceEpoch();
    QVERIFY(railyard::testing::WaitUntil([&] {
      const std::vector<qint64> times = HistoryTimes(*node);
      return !times.empty() && times.back() > std::max(drained, silent_from + 1200);
    }));
    const qint64 heard_again = QDateTime::currentMSecsSinceEpoch();
    source.Start();
    QVERIFY(filled.wait(10000));
    QCOMPARE(filled.at(0).at(0).toInt(), 0);
    QVERIFY2(filled.at(0).at(1).toLongLong() >= 20,
             qPrintable(QString::number(filled.at(0).at(1).toLongLong())));
    QVERIFY(filled.at(0).at(2).toLongLong() > silent_from);
    QVERIFY(filled.at(0).at(3).toLongLong() < heard_again + 1000);
    const ThroughputModel::Series& series = throughput.series(0);
    int inside = 0;
    for (size_t i = 0; i < series.size(); ++i) {
      if (i > 0) QVERIFY(series[i - 1].t_ms <= series[i].t_ms);
      if (series[i].t_ms <= silent_from || series[i].t_ms >= heard_again) continue;
      QVERIFY2(
          !series[i].IsGap(),
          qPrintable(QString("a gap %1 ms into the silence").arg(series[i].t_ms - silent_from)));
      ++inside;
    }
    QVERIFY2(inside >= 20, qPrintable(QString::number(inside)));
    bool drain_inside = false;
    for (const ThroughputEvent& e : throughput.Events(0, silent_from, heard_again)) {
      drain_inside = drain_inside || e.command == "drain";
    }
    QVERIFY(drain_inside);
    source.Stop();
    node->Shutdown(std::chrono::milliseconds(0));
  }

  // The backfill reads the recent past at full detail before polling, then the older past (the
  // day the recorder keeps) beside the polling, put before the node's series, and the cluster's
  // sums over it before the cluster's. (Here "recent" is the last 600 ms of a node that has
  // recorded for 2 s.)
  void theDayBehindTheBackfillFollowsBesideThePolling() {
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> node = OpenNode(dir.filePath("n"), 0, 20);
    QVERIFY(node);
    QVERIFY(RecordedFor(*node, 2000));
    const qint64 recorded_from = HistoryTimes(*node).front();
    ClusterState state;
    ThroughputModel throughput(&state);
    LiveSource source(&state);
    source.SetOptions(ShortRecentPast());
    QSignalSpy backfilled(&source, &LiveSource::Backfilled);
    QSignalSpy filled(&source, &LiveSource::GapFilled);
    QCOMPARE(source.AddNode(QString("127.0.0.1:%1").arg(node->admin_endpoint().port), kViewerToken),
             0);
    source.Start();
    QVERIFY(backfilled.wait(10000));
    const qint64 backfill_from = backfilled.at(0).at(2).toLongLong();
    QVERIFY2(backfill_from > recorded_from + 1000,
             qPrintable(QString("%1 ms").arg(backfill_from - recorded_from)));
    QTRY_VERIFY_WITH_TIMEOUT(filled.count() == 1, 10000);
    QCOMPARE(filled.at(0).at(0).toInt(), 0);
    QCOMPARE(filled.at(0).at(2).toLongLong(), recorded_from);
    QVERIFY(filled.at(0).at(3).toLongLong() < backfill_from);
    const ThroughputModel::Series& series = throughput.series(0);
    QCOMPARE(series.front().t_ms, recorded_from);
    for (size_t i = 0; i < series.size(); ++i) {
      if (i > 0) QVERIFY(series[i - 1].t_ms <= series[i].t_ms);
      QVERIFY2(!series[i].IsGap(),
               qPrintable(QString("a gap at +%1 ms").arg(series[i].t_ms - recorded_from)));
    }
    // One node backfilled: the cluster's sums reach back with its day behind too.
    QTRY_VERIFY_WITH_TIMEOUT(
        throughput.series(ThroughputModel::kCluster).front().t_ms < backfill_from, 10000);
    source.Stop();
    node->Shutdown(std::chrono::milliseconds(0));
  }

  // Once the day behind both nodes backfilled on connect has come, the cluster's sums reach back
  // over it too: in each poll period, the sum of each node's last sample there, as live (the
  // per-node series hold the same snapshots), with no gap while both recorded.
  void theClusterSumsReachBackOverTheDayBehind() {
    QTemporaryDir dir;
    railyard::ui::testing::LoadedNode a, b;
    QVERIFY(a.Start("sum-a", dir.filePath("a").toStdString(), "load-a", {kViewerToken}, {},
                    std::chrono::milliseconds(20)));
    QVERIFY(b.Start("sum-b", dir.filePath("b").toStdString(), "load-b", {kViewerToken}, {},
                    std::chrono::milliseconds(20)));
    QVERIFY(RecordedFor(*a.node, 2000) && RecordedFor(*b.node, 2000));
    ClusterState state;
    ThroughputModel throughput(&state);
    LiveSource source(&state);
    source.SetOptions(ShortRecentPast());
    QSignalSpy backfilled(&source, &LiveSource::Backfilled);
    QCOMPARE(source.AddNode(a.AdminAddress(), kViewerToken), 0);
    QCOMPARE(source.AddNode(b.AdminAddress(), kViewerToken), 1);
    source.Start();
    QVERIFY(backfilled.wait(10000));
    const qint64 backfill_from = backfilled.at(0).at(2).toLongLong();
    const ThroughputModel::Series& sums = throughput.series(ThroughputModel::kCluster);
    QTRY_VERIFY_WITH_TIMEOUT(!sums.empty() && sums.front().t_ms < backfill_from - 1000, 10000);
    const qint64 width = 1000 / 20;  // FastOptions' poll period: the recorders' were finer.
    // Node n's last sample in the bucket of `t`, from its own series.
    auto last_in_bucket = [&](int n, qint64 t) -> const railyard::ui::ThroughputSample* {
      const ThroughputModel::Series& series = throughput.series(n);
      const railyard::ui::ThroughputSample* found = nullptr;
      for (size_t i = 0; i < series.size(); ++i) {
        const qint64 at = series[i].t_ms;
        if (at - at % width == t - t % width && !series[i].IsGap()) found = &series[i];
      }
      return found;
    };
    int compared = 0, busy = 0;
    for (size_t i = 0; i < sums.size() && sums[i].t_ms < backfill_from - 100; ++i) {
      QVERIFY2(!sums[i].IsGap(), qPrintable(QString("a gap at %1").arg(sums[i].t_ms)));
      double expected = 0;
      for (int n : {0, 1}) {
        if (const railyard::ui::ThroughputSample* s = last_in_bucket(n, sums[i].t_ms)) {
          expected += s->requests_per_s;
        }
      }
      QVERIFY2(qAbs(sums[i].requests_per_s - expected) <= 1e-6 * std::max(1.0, expected),
               qPrintable(QString("at %1: %2 against %3")
                              .arg(sums[i].t_ms)
                              .arg(sums[i].requests_per_s)
                              .arg(expected)));
      ++compared;
      busy += sums[i].requests_per_s > 0 ? 1 : 0;
    }
    QVERIFY2(compared >= 10, qPrintable(QString::number(compared)));
    QVERIFY2(busy >= compared / 2, qPrintable(QString("%1 of %2").arg(busy).arg(compared)));
    source.Stop();
    a.Stop();
    b.Stop();
  }

  // Told not to backfill, a console polls at once and reads no past.
  void backfillIsOffWithTheOption() {
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> node = OpenNode(dir.filePath("n"), 0, 20);
    QVERIFY(node);
    QVERIFY(railyard::testing::WaitUntil([&] { return HistoryTimes(*node).size() >= 5; }));
    ClusterState state;
    LiveSource source(&state);
    LiveSource::Options options = FastOptions();
    options.backfill = false;
    source.SetOptions(options);
    QSignalSpy backfilled(&source, &LiveSource::Backfilled);
    QCOMPARE(source.AddNode(QString("127.0.0.1:%1").arg(node->admin_endpoint().port), kViewerToken),
             0);
    source.Start();
    QTRY_VERIFY_WITH_TIMEOUT(source.FramesApplied() >= 3, 10000);
    QCOMPARE(backfilled.count(), 0);
    source.Stop();
    node->Shutdown(std::chrono::milliseconds(0));
  }

  void aWrongTokenIsRefusedNotServed() {
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> node = OpenNode(dir.filePath("n"), 0);
    QVERIFY(node);
    ClusterState state;
    LiveSource source(&state);
    source.SetOptions(FastOptions());
    source.AddNode(QString("127.0.0.1:%1").arg(node->admin_endpoint().port), "not-the-token");
    QSignalSpy refused(&source, &LiveSource::TokenRefused);
    source.Start();
    // Refused, not unreachable: the node is fine, the token is not.
    QTRY_VERIFY_WITH_TIMEOUT(state.Node(0).health == NodeHealth::kTokenRefused, 10000);
    QVERIFY2(state.Node(0).last_error.contains("UNAUTHENTICATED"),
             qPrintable(state.Node(0).last_error));
    QCOMPARE(refused.count(), 1);
    QCOMPARE(refused[0][0].toInt(), 0);
    // The right token, set while running, gets telemetry through.
    source.SetToken(0, kViewerToken);
    QTRY_VERIFY_WITH_TIMEOUT(state.Node(0).health == NodeHealth::kServing, 10000);
    source.Stop();
  }

  void badAddressesAreRejectedClearly() {
    ClusterState state;
    LiveSource source(&state);
    QString error;
    QCOMPARE(source.AddNode("no-port-here", {}, &error), -1);
    QVERIFY(error.contains("host:port"));
    QCOMPARE(source.AddNode("127.0.0.1:99999", {}, &error), -1);
    QCOMPARE(state.NodeCount(), 0);
  }

  void stopDropsBatchesAlreadyPosted() {
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> node = OpenNode(dir.filePath("n"), 0);
    QVERIFY(node);
    ClusterState state;
    LiveSource source(&state);
    source.SetOptions(FastOptions());
    source.AddNode(QString("127.0.0.1:%1").arg(node->admin_endpoint().port), kViewerToken);
    source.Start();
    QTRY_VERIFY_WITH_TIMEOUT(source.FramesApplied() > 2, 10000);
    // Let the worker post while the GUI thread is busy, then stop before delivering.
    QThread::msleep(200);
    source.Stop();
    const quint64 frames = source.FramesApplied();
    QCoreApplication::processEvents();
    QCOMPARE(source.FramesApplied(), frames);
    QVERIFY(!source.Running());
  }

  void anUnreachableAddressNeverBlocksTheWindow() {
    // Nothing listens on this port (bound then released): connects are refused at once.
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> probe = OpenNode(dir.filePath("p"), 0);
    QVERIFY(probe);
    const uint16_t dead_port = probe->admin_endpoint().port;
    probe->Shutdown(std::chrono::milliseconds(100));
    probe.reset();
    std::unique_ptr<railyard::node::Node> node = OpenNode(dir.filePath("n"), 0);
    QVERIFY(node);
    ClusterState state;
    LiveSource source(&state);
    source.SetOptions(FastOptions());
    source.AddNode(QString("127.0.0.1:%1").arg(dead_port), kViewerToken);
    source.AddNode(QString("127.0.0.1:%1").arg(node->admin_endpoint().port), kViewerToken);
    source.Start();
    // The live node is served while the dead one backs off.
    QTRY_VERIFY_WITH_TIMEOUT(state.Node(1).health == NodeHealth::kServing &&
                                 state.Node(0).health == NodeHealth::kUnreachable,
                             10000);
    source.Stop();
  }
};

RAILYARD_QTEST_GUILESS_MAIN(LiveSourceTest)
#include "tst_live_source.moc"
