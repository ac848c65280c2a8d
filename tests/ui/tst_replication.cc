// SPDX-License-Identifier: Apache-2.0
// The replication view (table and lag plot), the overview's role and lag columns and the
// compaction view's document-cache line, from a generated cluster of one updater and two
// replicas: frames applied as live polling applies them, then the same frames recorded through
// trace::TelemetryRecorder and replayed.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QImage>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "tests/support/qtest_main.h"
#include "tests/ui/replication_fixture.h"
#include "tests/ui/screenshot.h"
#include "tests/ui/ui_test_support.h"
#include "ui/models/overview_model.h"
#include "ui/models/palette.h"
#include "ui/models/replication_lag_model.h"
#include "ui/models/replication_model.h"
#include "ui/models/throughput_model.h"
#include "ui/shell/column_fit.h"
#include "ui/sources/replay_source.h"
#include "ui/views/compaction_view.h"
#include "ui/views/plot_style.h"
#include "ui/views/qcustomplot_include.h"
#include "ui/views/replication_view.h"
#include "ui/views/time_range_dialog.h"

using namespace railyard::ui;
using railyard::ui::testing::GeneratedReplication;

using railyard::ui::testing::SaveScreenshot;
namespace {

using G = GeneratedReplication;
constexpr int kFrames = 40;

// Declares the three nodes (as a cluster file would) and applies frames [from, to) to them.
void Declare(ClusterState* state) {
  for (int n = 0; n < G::kNodes; ++n) {
    state->AddNode(QStringLiteral("10.0.0.%1:7001").arg(n + 1),
                   QString::fromStdString(G::NodeName(n)));
  }
}

void Apply(ClusterState* state, const G& g, int from, int to) {
  for (int f = from; f < to; ++f) {
    std::vector<ClusterState::Update> updates;
    for (int n = 0; n < G::kNodes; ++n) {
      updates.push_back({n,
                         std::make_shared<const railyard::admin::Telemetry>(g.Telemetry(n, f)),
                         {},
                         g.TimeOf(f)});
    }
    state->ApplyFrame(updates, g.TimeOf(f));
  }
}

using railyard::ui::testing::Cell;

// ClusterState's index of generated node `n` (a replay declares nodes in its own order).
int IndexOf(const ClusterState& state, int n) {
  return state.IndexOfName(QString::fromStdString(G::NodeName(n)));
}

// The rows of the replication model as the frame `frame` must show them: rows in ClusterState
// order, each found here by its node's name.
void CheckReplicationRows(const ClusterState& state, const ReplicationModel& model, int frame) {
  QCOMPARE(model.rowCount(), 3);
  for (int row = 0; row < 3; ++row) QCOMPARE(model.NodeOfRow(row), row);
  int rows[G::kNodes];
  for (int n = 0; n < G::kNodes; ++n) {
    rows[n] = model.RowOfNode(IndexOf(state, n));
    QVERIFY(rows[n] >= 0);
    QCOMPARE(Cell(model, rows[n], ReplicationModel::kName), QString::fromStdString(G::NodeName(n)));
  }
  const auto Text = [&model, &rows](int n, int column, int role = Qt::DisplayRole) {
    return model.index(rows[n], column).data(role).toString();
  };
  const auto Number = [&model, &rows](int n, int column, int role) {
    return model.index(rows[n], column).data(role);
  };
  using M = ReplicationModel;
  // The updater's address, named after the node serving there.
  const QString updater =
      QStringLiteral("updater (%1)").arg(G::ServiceAddress(G::kUpdater).c_str());
  QCOMPARE(Text(G::kUpdater, M::kRole), QString("updater"));
  QCOMPARE(Text(G::kUpdater, M::kFollows), QString("followers: replica-a, replica-b"));
  QVERIFY(Text(G::kUpdater, M::kFollows, Qt::ToolTipRole)
              .contains(QStringLiteral("replica-a (10.0.0.2:7000): position %1, %2 docs")
                            .arg((G::HeadDocs(frame) - G::LagDocs(G::kCatchingUp, frame)) * 200)
                            .arg(G::LagDocs(G::kCatchingUp, frame))));
  QCOMPARE(Text(G::kUpdater, M::kState), QString());
  QCOMPARE(Text(G::kUpdater, M::kLagDocs), QString());

  for (int n : {G::kCatchingUp, G::kTailing}) {
    QCOMPARE(Text(n, M::kRole), QString("replica"));
    QCOMPARE(Text(n, M::kFollows), updater);
    QCOMPARE(Number(n, M::kLagDocs, M::kSortRole).toDouble(), double(G::LagDocs(n, frame)));
    QCOMPARE(Number(n, M::kLagSeconds, M::kSortRole).toDouble(), G::LagSeconds(n, frame));
    QCOMPARE(Text(n, M::kLagSeconds), QString::number(G::LagSeconds(n, frame), 'f', 1));
    QCOMPARE(Number(n, M::kApplied, M::kSortRole).toULongLong(),
             (G::HeadDocs(frame) - G::LagDocs(n, frame)) * 200);
    QCOMPARE(Number(n, M::kHead, M::kSortRole).toULongLong(), G::HeadDocs(frame) * 200);
  }
  QCOMPARE(Text(G::kCatchingUp, M::kState), QString("catching up"));
  QCOMPARE(Text(G::kCatchingUp, M::kState, Qt::ToolTipRole), QString(G::kCatchUpError));
  QCOMPARE(Number(G::kCatchingUp, M::kCatchUp, M::kProgressRole).toDouble(),
           G::CatchUpProgress(frame));
  QCOMPARE(Text(G::kCatchingUp, M::kCatchUp),
           QStringLiteral("%1 %").arg(G::CatchUpProgress(frame) * 100, 0, 'f', 0));
  QCOMPARE(Text(G::kCatchingUp, M::kApplyRate), QString("5000"));
  QCOMPARE(Text(G::kCatchingUp, M::kRefetches), QString("2"));
  QCOMPARE(Text(G::kTailing, M::kState), QString("tailing"));
  QCOMPARE(Text(G::kTailing, M::kState, Qt::ToolTipRole), QString());
  QCOMPARE(Number(G::kTailing, M::kCatchUp, M::kProgressRole).toDouble(), -1.0);
  QCOMPARE(Text(G::kTailing, M::kCatchUp), QString());
}

// Every replica's lag graph holds exactly its samples for frames [0, frames), in `unit`.
void CheckLagGraphs(const ClusterState& state, const ReplicationView& view, const G& g,
                    int frames) {
  QVERIFY(view.GraphOf(IndexOf(state, G::kUpdater)) == nullptr);  // An updater has no lag.
  for (int n : {G::kCatchingUp, G::kTailing}) {
    QCPGraph* graph = view.GraphOf(IndexOf(state, n));
    QVERIFY(graph != nullptr);
    QCOMPARE(graph->name(), QString::fromStdString(G::NodeName(n)));
    QCOMPARE(graph->data()->size(), frames);
    int f = 0;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it, ++f) {
      QCOMPARE(it->key, double(g.TimeOf(f)) / 1000.0);
      const double expected = view.Unit() == ReplicationView::LagUnit::kDocs
                                  ? double(G::LagDocs(n, f))
                                  : G::LagSeconds(n, f);
      QCOMPARE(it->value, expected);
    }
  }
}

}  // namespace

class ReplicationTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

  void modelHasARowPerNodeWithARole() {
    ClusterState state;
    Declare(&state);
    ReplicationModel model(&state);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);  // No telemetry yet: no role known.
    const G g;
    Apply(&state, g, 0, 1);
    CheckReplicationRows(state, model, 0);
    Apply(&state, g, 1, kFrames);
    CheckReplicationRows(state, model, kFrames - 1);
    // A node that reports no role (a client, an older node) has no row.
    state.AddNode("10.0.0.9:7001", "client");
    railyard::admin::Telemetry client;
    client.set_node("client");
    client.set_unix_ms(g.TimeOf(kFrames));
    state.ApplyFrame({{3, std::make_shared<const railyard::admin::Telemetry>(client), {}, 0}},
                     g.TimeOf(kFrames));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.RowOfNode(3), -1);
    state.Clear();
    QCOMPARE(model.rowCount(), 0);
  }

  // docs/figures.md: a replica whose node stopped answering (SIGKILL, SIGSTOP) has an unknown
  // state and lag. The console kept showing its last "tailing, 0.0 s" in green for as long as it
  // was watched; the lag plot now has a gap, and a replica that itself reports no live follow
  // connection reads "unknown" too.
  void aReplicaThatStoppedAnsweringIsUnknown() {
    ClusterState state;
    Declare(&state);
    ReplicationModel model(&state);
    OverviewModel overview(&state);
    ReplicationLagModel lag(&state);
    const G g;
    Apply(&state, g, 0, 5);
    const int row = model.RowOfNode(G::kTailing);
    QCOMPARE(Cell(model, row, ReplicationModel::kState), QString("tailing"));
    state.ApplyFrame({{G::kTailing, nullptr, "connection refused"}}, g.TimeOf(5));
    QCOMPARE(Cell(model, row, ReplicationModel::kState), QString("unknown (node unreachable)"));
    QVERIFY2(Cell(model, row, ReplicationModel::kState, Qt::ToolTipRole).contains("tailing"),
             qPrintable(Cell(model, row, ReplicationModel::kState, Qt::ToolTipRole)));
    QCOMPARE(Cell(model, row, ReplicationModel::kLagDocs), QString("unknown"));
    QCOMPARE(Cell(model, row, ReplicationModel::kLagSeconds), QString("unknown"));
    QCOMPARE(model.index(row, ReplicationModel::kState).data(Qt::DecorationRole).value<QColor>(),
             HealthColor(NodeHealth::kStale));
    QCOMPARE(Cell(overview, G::kTailing, OverviewModel::kLag), QString("unknown"));

    // Back, but its follow connection is down: its own telemetry says the lag is unknown.
    railyard::admin::Telemetry t = g.Telemetry(G::kTailing, 6);
    t.mutable_replication()->set_state(railyard::admin::REPLICA_DISCONNECTED);
    t.mutable_replication()->set_lag_known(false);
    state.ApplyFrame(
        {{G::kTailing, std::make_shared<const railyard::admin::Telemetry>(t), {}, g.TimeOf(6)}},
        g.TimeOf(6));
    QCOMPARE(Cell(model, row, ReplicationModel::kState), QString("disconnected"));
    QCOMPARE(Cell(model, row, ReplicationModel::kLagSeconds), QString("unknown"));
    QCOMPARE(Cell(overview, G::kTailing, OverviewModel::kLag), QString("unknown"));
    const ReplicationLagModel::Series& series = lag.series(G::kTailing);
    QVERIFY(!series.empty());
    QVERIFY(std::isnan(series.back().lag_seconds) && std::isnan(series.back().lag_docs));
  }

  // Remove node forgets that node only: every other node's throughput and lag history stays
  // (it wiped every chart, the command marks and the lag plot: C4).
  void removeNodeKeepsTheOthersHistory() {
    ClusterState state;
    Declare(&state);
    ThroughputModel throughput(&state);
    ReplicationLagModel lag(&state);
    const G g;
    Apply(&state, g, 0, 20);
    const size_t samples = throughput.series(G::kTailing).size();
    QVERIFY(samples >= 19);
    QCOMPARE(lag.series(G::kTailing).size(), size_t{20});
    QSignalSpy cleared(&lag, &ReplicationLagModel::Cleared);
    state.RemoveNode(G::kUpdater);
    QCOMPARE(cleared.count(), 1);  // The view rebuilds from what is kept.
    const int tailing = IndexOf(state, G::kTailing);
    QCOMPARE(tailing, G::kTailing - 1);
    QCOMPARE(throughput.series(tailing).size(), samples);
    QCOMPARE(lag.series(tailing).size(), size_t{20});
    QCOMPARE(lag.series(IndexOf(state, G::kCatchingUp)).size(), size_t{20});
    QCOMPARE(lag.Replicas(), (QVector<int>{0, 1}));
    state.Clear();  // A new cluster: everything goes.
    QVERIFY(lag.Replicas().isEmpty());
    QVERIFY(throughput.series(0).empty());
  }

  void modelSortsNamesNaturally() {
    ClusterState state;
    const QStringList declared = {"replica-10", "replica-2", "Replica-3"};
    for (int n = 0; n < G::kNodes; ++n) {
      state.AddNode(QStringLiteral("10.0.0.%1:7001").arg(n + 1), declared[n]);
    }
    ReplicationModel model(&state);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(ReplicationModel::kSortRole);
    const G g;
    std::vector<ClusterState::Update> updates;
    for (int n = 0; n < G::kNodes; ++n) {
      railyard::admin::Telemetry t = g.Telemetry(n, 0);
      t.set_node(declared[n].toStdString());
      updates.push_back(
          {n, std::make_shared<const railyard::admin::Telemetry>(t), {}, g.TimeOf(0)});
    }
    state.ApplyFrame(updates, g.TimeOf(0));
    proxy.sort(ReplicationModel::kName, Qt::AscendingOrder);
    QStringList names;
    for (int r = 0; r < proxy.rowCount(); ++r) names << Cell(proxy, r, ReplicationModel::kName);
    QCOMPARE(names, QStringList({"replica-2", "Replica-3", "replica-10"}));
  }

  void overviewShowsRoleAndLag() {
    ClusterState state;
    Declare(&state);
    OverviewModel model(&state);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const G g;
    Apply(&state, g, 0, kFrames);
    const int f = kFrames - 1;
    QCOMPARE(Cell(model, G::kUpdater, OverviewModel::kStoreRole), QString("updater"));
    QCOMPARE(Cell(model, G::kCatchingUp, OverviewModel::kStoreRole), QString("replica"));
    QCOMPARE(Cell(model, G::kTailing, OverviewModel::kStoreRole), QString("replica"));
    QCOMPARE(Cell(model, G::kUpdater, OverviewModel::kLag), QString("2 followers"));
    QCOMPARE(Cell(model, G::kCatchingUp, OverviewModel::kLag),
             QStringLiteral("%1 docs, %2 s")
                 .arg(G::LagDocs(G::kCatchingUp, f))
                 .arg(G::LagSeconds(G::kCatchingUp, f), 0, 'f', 1));
    QCOMPARE(Cell(model, G::kTailing, OverviewModel::kLag),
             QStringLiteral("%1 docs, 0.4 s").arg(G::LagDocs(G::kTailing, f)));
    // Sorted by lag: the updater first, then the replicas, least behind first.
    OverviewFilterModel filter;
    filter.setSourceModel(&model);
    filter.sort(OverviewModel::kLag, Qt::AscendingOrder);
    QCOMPARE(Cell(filter, 0, OverviewModel::kName), QString("updater"));
    QCOMPARE(Cell(filter, 1, OverviewModel::kName), QString("replica-b"));
    QCOMPARE(Cell(filter, 2, OverviewModel::kName), QString("replica-a"));
    filter.sort(OverviewModel::kStoreRole, Qt::AscendingOrder);  // "replica" < "updater".
    QCOMPARE(Cell(filter, 2, OverviewModel::kName), QString("updater"));
  }

  void viewShowsRowsAndLagOverTime() {
    ClusterState state;
    Declare(&state);
    ReplicationView view(&state);
    QAbstractItemModelTester tester(view.Model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.resize(1100, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.Summary(), QString("No node reports replication"));
    const G g;
    Apply(&state, g, 0, kFrames);
    CheckReplicationRows(state, *view.Model(), kFrames - 1);
    QCOMPARE(view.Summary(), QString("1 updater(s), 2 replica(s): 1 tailing, 1 catching up, 0 "
                                     "disconnected or stopped"));
    // The table shows the model, sortable: by lag in documents, the tailing replica first.
    QCOMPARE(view.Table()->model()->rowCount(), 3);
    view.Table()->sortByColumn(ReplicationModel::kLagDocs, Qt::AscendingOrder);
    QCOMPARE(Cell(*view.Table()->model(), 0, ReplicationModel::kName), QString("updater"));
    QCOMPARE(Cell(*view.Table()->model(), 1, ReplicationModel::kName), QString("replica-b"));
    QCOMPARE(Cell(*view.Table()->model(), 2, ReplicationModel::kName), QString("replica-a"));
    // Lag over time, in documents, then in seconds.
    QCOMPARE(view.LagModel()->Replicas(), QVector<int>({G::kCatchingUp, G::kTailing}));
    QCOMPARE(view.LagModel()->series(G::kCatchingUp).size(), size_t(kFrames));
    CheckLagGraphs(state, view, g, kFrames);
    // The tailing replica's lag of 0 is a line above the axis line, not hidden under it.
    QCustomPlot* plot = view.LagPlot();
    plot->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY2(plot->yAxis->coordToPixel(0) < plot->axisRect()->bottom() - 1,
             qPrintable(QString::number(plot->yAxis->coordToPixel(0))));
    SaveScreenshot(&view, "console_replication.png");
    view.UnitBox()->setCurrentIndex(
        view.UnitBox()->findData(static_cast<int>(ReplicationView::LagUnit::kSeconds)));
    QCOMPARE(view.Unit(), ReplicationView::LagUnit::kSeconds);
    CheckLagGraphs(state, view, g, kFrames);
    // Selecting a row names its node for the per-node views.
    QSignalSpy selected(&view, &ReplicationView::NodeSelected);
    view.Table()->selectRow(2);
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.at(0).at(0).toInt(), G::kCatchingUp);
  }

  // The lag plot zooms as Throughput's does: a drag across it shows the dragged range and stops
  // following (new samples leave it where it is), the lag axis fitted to what is visible; a
  // double-click follows the newest samples again.
  void theLagPlotZoomsByDragAndFollowsOnADoubleClick() {
    ClusterState state;
    Declare(&state);
    ReplicationView view(&state);
    view.resize(1100, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const G g;
    Apply(&state, g, 0, kFrames);
    QCustomPlot* plot = view.LagPlot();
    plot->replot();
    QVERIFY(view.Following());
    QCOMPARE(plot->xAxis->range().upper, double(g.TimeOf(kFrames - 1)) / 1000.0);
    const QRect area = plot->axisRect()->rect();
    // Over the middle half of the samples (a fresh start fills only part of the axis).
    const int y = area.center().y();
    const QPoint from(int(plot->xAxis->coordToPixel(g.TimeOf(kFrames / 4) / 1000.0)), y);
    const QPoint to(int(plot->xAxis->coordToPixel(g.TimeOf(3 * kFrames / 4) / 1000.0)), y);
    const double from_s = plot->xAxis->pixelToCoord(from.x());
    const double to_s = plot->xAxis->pixelToCoord(to.x());
    QTest::mousePress(plot, Qt::LeftButton, {}, from);
    QTest::mouseMove(plot, (from + to) / 2);
    QTest::mouseMove(plot, to);
    QTest::mouseRelease(plot, Qt::LeftButton, {}, to);
    QVERIFY(!view.Following());
    QVERIFY2(std::abs(plot->xAxis->range().lower - from_s) < 0.01 &&
                 std::abs(plot->xAxis->range().upper - to_s) < 0.01,
             qPrintable(QString("dragged %1 s wide, shows %2 s")
                            .arg(to_s - from_s)
                            .arg(plot->xAxis->range().size())));
    // The lag axis fits what the zoomed range shows.
    QCPRange visible;
    QVERIFY(railyard::ui::VisibleValueRange(plot, &visible));
    QCOMPARE(plot->yAxis->range().upper, std::max(visible.upper * 1.1, 1.0));
    const QCPRange zoomed = plot->xAxis->range();
    Apply(&state, g, kFrames, kFrames + 5);
    QCOMPARE(plot->xAxis->range(), zoomed);
    QTest::mouseDClick(plot, Qt::LeftButton, {}, area.center());
    QVERIFY(view.Following());
    QCOMPARE(plot->xAxis->range().upper, double(g.TimeOf(kFrames + 4)) / 1000.0);
  }

  // The lag plot marks the moments of the nodes in replication (here an alert on a replica) as
  // Throughput does, not those of other nodes; Range... holds it on a custom range, where a mark
  // outside shows no label.
  void theLagPlotMarksReplicationMomentsAndTakesARange() {
    ClusterState state;
    Declare(&state);
    const int client = state.AddNode("10.0.0.9:7001", "load-client");  // Never answers.
    ThroughputModel events(&state);
    ReplicationView view(&state);
    view.SetEvents(&events);
    view.resize(1100, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    G g;
    g.frame_ms = 1000;
    Apply(&state, g, 0, kFrames);
    const int replica = IndexOf(state, G::kCatchingUp);
    events.AddMark(g.TimeOf(10), replica, "RailyardReplicationLag firing");
    events.AddMark(g.TimeOf(12), client, "flush");
    Apply(&state, g, kFrames, kFrames + 1);
    auto labels = [&view](bool only_visible) {
      QStringList found;
      for (int i = 0; i < view.LagPlot()->itemCount(); ++i) {
        auto* text = qobject_cast<QCPItemText*>(view.LagPlot()->item(i));
        if (text && (!only_visible || text->visible())) found << text->text();
      }
      return found;
    };
    QCOMPARE(labels(false), QStringList({"RailyardReplicationLag firing replica-a"}));
    QCOMPARE(labels(true), labels(false));

    TimeRangeDialog* dialog = view.AskRange();
    QVERIFY(dialog->isVisible());
    dialog->SetRange({g.TimeOf(20) / 1000 * 1000, g.TimeOf(30) / 1000 * 1000 + 1000});
    QVERIFY(dialog->CanAccept());
    dialog->accept();
    QVERIFY(!view.Following());
    const std::optional<TimeWindow> held = view.FixedRange();
    QVERIFY(held);
    QCOMPARE(held->from_ms, g.TimeOf(20) / 1000 * 1000);
    QCOMPARE(held->to_ms, g.TimeOf(30) / 1000 * 1000 + 1000);
    QVERIFY(labels(true).isEmpty());  // The alert came before the range.
    QCOMPARE(labels(false).size(), 1);
    view.Follow();
    QVERIFY(!view.FixedRange());
    QCOMPARE(labels(true).size(), 1);
    // A range reaching back past the 15 minutes kept in full draws the 10 s buckets; the window
    // stays as chosen, and following again draws the full series.
    QCOMPARE(view.WindowMinutes(), 5);
    view.ShowRange(g.TimeOf(0) - 2 * 3600 * 1000, g.TimeOf(kFrames));
    QVERIFY(view.Coarse());
    QCOMPARE(view.WindowMinutes(), 5);
    QCOMPARE(view.GraphOf(replica)->data()->size(), int(view.LagModel()->coarse(replica).size()));
    view.Follow();
    QVERIFY(!view.Coarse());
    QCOMPARE(view.GraphOf(replica)->data()->size(), int(view.LagModel()->series(replica).size()));
  }

  // A replica that stops answering and comes back (SIGSTOP, a partition): its lag is unknown from
  // when it was first seen stale, a break in its line, not a ramp from its last figure to its next.
  void aSilentReplicasLagLineBreaks() {
    ClusterState state;
    Declare(&state);
    ReplicationView view(&state);
    view.resize(900, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    G g;
    g.frame_ms = 1000;
    Apply(&state, g, 0, 10);
    const int replica = IndexOf(state, G::kTailing);
    state.Tick(g.TimeOf(9) + state.StaleAfterMs() + 1000);  // Heard nothing since frame 9.
    QCOMPARE(state.Node(replica).health, NodeHealth::kStale);
    const ReplicationLagModel::Series& series = view.LagModel()->series(replica);
    QVERIFY(std::isnan(series.back().lag_docs));
    const qint64 broken_at = series.back().t_ms;
    QVERIFY(broken_at > g.TimeOf(9));
    state.Tick(g.TimeOf(9) + state.StaleAfterMs() + 2000);  // One break, not one per tick.
    QCOMPARE(series.back().t_ms, broken_at);
    Apply(&state, g, 20, 25);  // Back.
    QVERIFY(!std::isnan(series.back().lag_docs));
    int gaps = 0;
    for (size_t i = 0; i < series.size(); ++i) gaps += std::isnan(series[i].lag_docs) ? 1 : 0;
    QCOMPARE(gaps, 1);
    QCPGraph* graph = view.GraphOf(replica);
    QVERIFY(graph);
    bool drawn = false;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
      drawn = drawn || std::isnan(it->value);
    }
    QVERIFY2(drawn, "the plot has the break too");
  }

  // Windows past the 15 minutes kept in full: each replica's 10 s buckets (their highest lag),
  // for 24 hours; the plot draws them past 15 minutes and the full series within.
  void theLagPlotShowsHoursInTenSecondBuckets() {
    ClusterState state;
    Declare(&state);
    ReplicationView view(&state);
    view.resize(1100, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    G g;
    g.frame_ms = 1000;
    constexpr int kMinutes = 30;
    Apply(&state, g, 0, kMinutes * 60);  // Its bucket boundaries fall on whole 10 s.
    const qint64 last = g.TimeOf(kMinutes * 60 - 1);
    const auto& fine = view.LagModel()->series(G::kTailing);
    QVERIFY(fine.front().t_ms >= last - ReplicationLagModel::kMaxWindowMs);
    const auto& coarse = view.LagModel()->coarse(G::kTailing);
    QCOMPARE(coarse.size(), size_t(kMinutes * 6));
    for (size_t i = 0; i < coarse.size(); ++i) {
      QCOMPARE(coarse[i].t_ms, g.TimeOf(int(i) * 10));
      QCOMPARE(coarse[i].lag_docs, 124.0);  // 120..124 within each bucket: its highest.
    }
    QVERIFY(!view.SetWindowMinutes(7));
    QVERIFY(view.SetWindowMinutes(60));
    QCOMPARE(view.WindowBox()->currentData().toInt(), 60);
    QCPGraph* graph = view.GraphOf(G::kTailing);
    QVERIFY(graph);
    QCOMPARE(graph->data()->size(), int(coarse.size()));
    QCustomPlot* plot = view.LagPlot();
    QCOMPARE(plot->xAxis->range().upper, double(last) / 1000.0);
    QCOMPARE(plot->xAxis->range().lower, double(g.TimeOf(0)) / 1000.0);  // All 30 minutes.
    // The open bucket grows in place: drawn again, not twice.
    Apply(&state, g, kMinutes * 60, kMinutes * 60 + 3);
    QCOMPARE(graph->data()->size(), int(coarse.size()));
    QCOMPARE(coarse.size(), size_t(kMinutes * 6 + 1));
    QVERIFY(view.SetWindowMinutes(5));
    graph = view.GraphOf(G::kTailing);
    QCOMPARE(graph->data()->size(), int(fine.size()));
    QCOMPARE(plot->xAxis->range().size(), 5 * 60.0);
  }

  // A replica's own past that comes later (here: the day behind a backfill) goes before its lag
  // series and into its 10 s buckets, with a gap where it was silent; the plot draws it.
  void aReplicasLaterPastGoesIntoItsLagSeries() {
    ClusterState state;
    Declare(&state);
    ReplicationView view(&state);
    view.resize(1100, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    G g;
    g.frame_ms = 1000;
    Apply(&state, g, 600, 660);  // The console's own: from 10 minutes in.
    std::vector<std::shared_ptr<const railyard::admin::Telemetry>> past;
    for (int second = 0; second < 400; ++second) {
      if (second >= 100 && second < 200) continue;  // Down for 100 s.
      auto t = std::make_shared<railyard::admin::Telemetry>(g.Telemetry(G::kTailing, second));
      t->set_unix_ms(g.TimeOf(second));
      past.push_back(t);
    }
    QSignalSpy cleared(view.LagModel(), &ReplicationLagModel::Cleared);
    state.ApplyNodePast(G::kTailing, past);
    QCOMPARE(cleared.count(), 1);
    const auto& fine = view.LagModel()->series(G::kTailing);
    QCOMPARE(fine.front().t_ms, g.TimeOf(0));  // All within 15 minutes of the newest.
    int gaps = 0;
    for (size_t i = 0; i < fine.size(); ++i) {
      if (i > 0) QVERIFY(fine[i - 1].t_ms <= fine[i].t_ms);
      if (std::isnan(fine[i].lag_docs)) {
        ++gaps;
        // Where it was down, and between its past and the console's first sample.
        QVERIFY((fine[i].t_ms > g.TimeOf(99) && fine[i].t_ms < g.TimeOf(200)) ||
                (fine[i].t_ms > g.TimeOf(399) && fine[i].t_ms < g.TimeOf(600)));
      }
    }
    QCOMPARE(gaps, 2);
    QCOMPARE(fine.size(), size_t(300 + 2 + 60));
    const auto& coarse = view.LagModel()->coarse(G::kTailing);
    QCOMPARE(coarse.front().t_ms, g.TimeOf(0));
    QVERIFY(view.SetWindowMinutes(60));
    QCOMPARE(view.GraphOf(G::kTailing)->data()->size(), int(coarse.size()));
    // A past over what the console took puts nothing in.
    std::vector<std::shared_ptr<const railyard::admin::Telemetry>> polled{
        std::make_shared<railyard::admin::Telemetry>(g.Telemetry(G::kTailing, 630))};
    state.ApplyNodePast(G::kTailing, polled);
    QCOMPARE(cleared.count(), 1);
  }

  // An updater with 47 followers, three of them silent: its cell names the silent ones and counts
  // the rest (the tooltip lists every one). In fleet_bench's lab of 47 the cell listed every name,
  // and the main window's fitted table cut the positions beside it to "291,..."; here a 1024 px
  // table, fitted as the main window fits it, keeps them whole.
  void anUpdaterWithManyFollowersNamesTheSilentAndCountsTheRest() {
    ClusterState state;
    state.AddNode(QString::fromStdString(G::ServiceAddress(G::kUpdater)), "updater");
    const G g;
    auto t = std::make_shared<railyard::admin::Telemetry>(g.Telemetry(G::kUpdater, 0));
    railyard::admin::Replication* r = t->mutable_replication();
    r->set_head_position(291834123);
    r->set_applied_position(291834123);
    r->clear_followers();
    for (int n = 0; n < 47; ++n) {
      railyard::admin::Follower* f = r->add_followers();
      f->set_name(QString("replica%1").arg(n + 1).toStdString());
      f->set_address(QString("10.77.141.%1:7000").arg(n + 2).toStdString());
      f->set_lag_known(n != 7 && n != 27 && n != 45);
    }
    state.ApplyFrame({{0, t, {}, g.TimeOf(0)}}, g.TimeOf(0));
    ReplicationView view(&state);
    view.resize(1024, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    railyard::ui::FitColumnsToWidth(view.Table());
    // Every figure column at least as wide as its contents once the fit has run.
    const QAbstractItemView* table = view.Table();
    for (int column : {int(ReplicationModel::kApplied), int(ReplicationModel::kHead)}) {
      QTRY_VERIFY2(view.Table()->columnWidth(column) >= table->sizeHintForColumn(column),
                   qPrintable(QString("column %1: %2 < %3")
                                  .arg(column)
                                  .arg(view.Table()->columnWidth(column))
                                  .arg(table->sizeHintForColumn(column))));
    }
    const QModelIndex follows = view.Table()->model()->index(0, ReplicationModel::kFollows);
    QCOMPARE(follows.data().toString(),
             QString("47 followers: replica8 (silent), replica28 (silent), replica46 (silent) and "
                     "44 more"));
    const QString tooltip = follows.data(Qt::ToolTipRole).toString();
    QVERIFY(tooltip.contains("replica47 (10.77.141.48:7000)"));
    QVERIFY(tooltip.contains("replica1 (10.77.141.2:7000)"));
    SaveScreenshot(&view, "console_replication_many_followers.png");

    // More than three silent: the count says how many in all.
    for (int n = 0; n < 6; ++n) r->mutable_followers(n)->set_lag_known(false);
    state.ApplyFrame({{0, t, {}, g.TimeOf(1)}}, g.TimeOf(1));
    QCOMPARE(view.Table()->model()->index(0, ReplicationModel::kFollows).data().toString(),
             QString("47 followers: replica1 (silent), replica2 (silent), replica3 (silent) and 44 "
                     "more (9 silent in all)"));
  }

  // Twenty replicas: the legend lists the highest lags (an unknown one first), the selected row's
  // replica too, and says how many more are drawn faint; it ranks again once kLegendRerankMs of
  // cluster time has passed, not at every frame. Two replicas are both listed, with no note.
  void aCrowdedLegendListsTheHighestLagsAndCountsTheRest() {
    constexpr int kReplicas = 20;
    constexpr int kUnknown = 4;  // replica-05 lost its updater: its lag is unknown.
    ClusterState state;
    auto name = [](int n) { return QString("replica-%1").arg(n + 1, 2, 10, QChar('0')); };
    for (int n = 0; n < kReplicas; ++n)
      state.AddNode(QString("10.0.1.%1:7001").arg(n + 1), name(n));
    const G g;
    // Frame f: replica n lags n * 10 documents, or (reversed) (kReplicas - n) * 10.
    auto apply = [&](int f, bool reversed) {
      std::vector<ClusterState::Update> updates;
      for (int n = 0; n < kReplicas; ++n) {
        auto t = std::make_shared<railyard::admin::Telemetry>(g.Telemetry(G::kTailing, f));
        t->set_node(name(n).toStdString());
        t->set_admin_address(QString("10.0.1.%1:7001").arg(n + 1).toStdString());
        t->set_service_address(QString("10.0.1.%1:7000").arg(n + 1).toStdString());
        railyard::admin::Replication* r = t->mutable_replication();
        r->set_lag_docs(uint64_t(reversed ? kReplicas - n : n) * 10);
        if (n == kUnknown) {
          r->set_lag_known(false);
          r->set_state(railyard::admin::REPLICA_DISCONNECTED);
        }
        updates.push_back({n, t, {}, g.TimeOf(f)});
      }
      state.ApplyFrame(updates, g.TimeOf(f));
    };
    ReplicationView view(&state);
    view.resize(1100, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    apply(0, false);
    const QStringList first = view.LegendTexts();
    const int rows = int(first.size()) - 1;
    QVERIFY2(rows >= 3 && rows <= ReplicationView::kMaxLegendReplicas, qPrintable(first.join("|")));
    QStringList expected{name(kUnknown)};
    for (int n = kReplicas - 1; expected.size() < rows; --n) expected << name(n);
    expected << QString("%1 more, lower lag (drawn faint)").arg(kReplicas - rows);
    QCOMPARE(first, expected);
    // Listed lines at full strength, the rest faint: mixed with the background, yet opaque (a
    // translucent line is a fill Qt's raster engine waits on its thread pool for).
    const QColor base = view.palette().color(QPalette::Base);
    auto distance_to_base = [&base](const QColor& c) {
      return std::abs(c.red() - base.red()) + std::abs(c.green() - base.green()) +
             std::abs(c.blue() - base.blue());
    };
    const QColor faint = view.GraphOf(0)->pen().color();
    QCOMPARE(faint.alpha(), 255);
    QCOMPARE(view.GraphOf(kReplicas - 1)->pen().color().alpha(), 255);
    QCOMPARE(view.GraphOf(0)->pen().widthF(), 1.0);
    QCOMPARE(view.GraphOf(kReplicas - 1)->pen().widthF(), 1.5);
    // Opaque, the faint ones are drawn beneath the listed ones, which they would otherwise cross.
    QVERIFY(view.GraphOf(0)->layer()->index() < view.GraphOf(kReplicas - 1)->layer()->index());
    SaveScreenshot(&view, "console_replication_crowded.png");

    // The selected row's replica joins the list.
    const QModelIndex row0 = view.Table()->model()->index(0, ReplicationModel::kName);
    QCOMPARE(row0.data().toString(), name(0));  // Sorted by name.
    view.Table()->setCurrentIndex(row0);
    QStringList with_selected = view.LegendTexts();
    QVERIFY2(with_selected.contains(name(0)), qPrintable(with_selected.join("|")));
    // Listed now: its own colour, further from the background than it was drawn faint.
    const QColor listed = view.GraphOf(0)->pen().color();
    QCOMPARE(view.GraphOf(0)->pen().widthF(), 1.5);
    QCOMPARE(view.GraphOf(0)->layer(), view.GraphOf(kReplicas - 1)->layer());
    QVERIFY2(distance_to_base(faint) < distance_to_base(listed),
             qPrintable(faint.name() + " faint, " + listed.name() + " listed"));
    QCOMPARE(with_selected.last(),
             QString("%1 more, lower lag (drawn faint)").arg(kReplicas - rows - 1));

    // Lags reversed within the ranking's hold: the same list; after it, the new highest.
    apply(1, true);
    QCOMPARE(view.LegendTexts(), with_selected);
    const int later = int(ReplicationView::kLegendRerankMs / g.frame_ms) + 1;
    apply(later, true);
    const QStringList reranked = view.LegendTexts();
    QCOMPARE(reranked.at(0), name(kUnknown));
    QCOMPARE(reranked.at(1), name(0));  // Now the highest (200 documents), and selected.
    QCOMPARE(reranked.at(2), name(1));

    // Two replicas fit: both listed, no note.
    ClusterState small;
    Declare(&small);
    ReplicationView two(&small);
    two.resize(1100, 600);
    two.show();
    QVERIFY(QTest::qWaitForWindowExposed(&two));
    Apply(&small, g, 0, 2);
    QCOMPARE(two.LegendTexts().size(), 2);
    QVERIFY(two.LegendTexts().contains(QString::fromStdString(G::NodeName(G::kTailing))));
  }

  void compactionViewShowsTheDocumentCache() {
    ClusterState state;
    Declare(&state);
    CompactionView view(&state);
    view.SetNode(G::kTailing);
    view.show();
    const G g;
    Apply(&state, g, 0, 1);
    // One snapshot: the since-start rate only.
    QCOMPARE(view.CacheText(), QString("Document cache: - hits over the last interval, 50.0% "
                                       "since start; 12.00 MiB of 64.00 MiB (3,000 documents)"));
    Apply(&state, g, 1, 5);
    const double since_start =
        double(G::CacheHits(4)) / double(G::CacheHits(4) + G::CacheMisses(4));
    QCOMPARE(view.Model()->Cache().interval_hit_rate, 0.9);
    QCOMPARE(view.Model()->Cache().hit_rate, since_start);
    QCOMPARE(
        view.CacheText(),
        QStringLiteral("Document cache: 90.0% hits over the last 0.1 s, %1% since start; 12.00 "
                       "MiB of 64.00 MiB (3,000 documents)")
            .arg(since_start * 100, 0, 'f', 1));
  }

  void aRecordingReplaysIntoTheSameView() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("replication.rec");
    const G g;
    QVERIFY(railyard::ui::testing::WriteReplicationRecording(path.toStdString(), g, kFrames).ok());

    ClusterState state;
    ReplicationView view(&state);
    OverviewModel overview(&state);
    QAbstractItemModelTester tester(view.Model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.resize(1100, 600);
    view.show();
    ReplaySource replay(&state);
    QString error;
    QVERIFY2(replay.Open(path, &error), qPrintable(error));
    QCOMPARE(state.NodeCount(), 3);
    CheckReplicationRows(state, *view.Model(), 0);
    // One recorded frame per step, to the end.
    replay.SetTickIntervalMs(g.frame_ms);
    while (replay.PositionMs() < replay.EndMs()) replay.Step();
    CheckReplicationRows(state, *view.Model(), kFrames - 1);
    CheckLagGraphs(state, view, g, kFrames);
    QCOMPARE(Cell(overview, IndexOf(state, G::kUpdater), OverviewModel::kStoreRole),
             QString("updater"));
    QCOMPARE(Cell(overview, IndexOf(state, G::kTailing), OverviewModel::kLag),
             QStringLiteral("%1 docs, 0.4 s").arg(G::LagDocs(G::kTailing, kFrames - 1)));
  }

  // A seek rebuilds the lag chart with the recorded history up to the seek point, without
  // playing: forwards, and backwards too.
  void aSeekRebuildsTheLagHistory() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("replication.rec");
    const G g;
    QVERIFY(railyard::ui::testing::WriteReplicationRecording(path.toStdString(), g, kFrames).ok());
    ClusterState state;
    ReplicationView view(&state);
    view.resize(1100, 600);
    view.show();
    ReplaySource replay(&state);
    QString error;
    QVERIFY2(replay.Open(path, &error), qPrintable(error));
    replay.Seek(g.TimeOf(25));
    CheckLagGraphs(state, view, g, 26);
    replay.Seek(g.TimeOf(10));
    CheckLagGraphs(state, view, g, 11);
  }
};

RAILYARD_QTEST_MAIN(ReplicationTest)
#include "tst_replication.moc"
