// SPDX-License-Identifier: Apache-2.0
// The throughput view's time context, offscreen, on generated telemetry frames: each node
// overlaid, the shared crosshair readout, restart and lame-duck marks, the log latency axis, the
// aligned time axes and where the time window lies (B15); each writes a screenshot.
#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QSignalSpy>
#include <QStringList>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <climits>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "tests/support/qtest_main.h"
#include "tests/ui/screenshot.h"
#include "tests/ui/ui_test_support.h"
#include "ui/models/throughput_model.h"
#include "ui/views/plot_crosshair.h"
#include "ui/views/qcustomplot_include.h"
#include "ui/views/throughput_graphs.h"
#include "ui/views/throughput_view.h"
#include "ui/views/time_axis_drag.h"
#include "ui/views/time_range_dialog.h"

using namespace railyard;
using namespace railyard::ui;

using railyard::ui::testing::SaveScreenshot;
namespace {

constexpr qint64 kT0 = 1700000000000;

// A node's snapshot: `sequence`, `state`, serving `rate` with one method at these latencies (none
// when `p99_us` is 0, as a recording without latency has).
std::shared_ptr<admin::Telemetry> Snapshot(uint64_t sequence, double rate, double p50_us,
                                           double p99_us,
                                           admin::NodeState state = admin::NODE_SERVING) {
  auto t = std::make_shared<admin::Telemetry>();
  t->set_sequence(sequence);
  t->set_state(state);
  t->mutable_throughput()->set_requests_per_s(rate);
  if (p99_us > 0) {
    admin::MethodStats* m = t->mutable_throughput()->add_methods();
    m->set_requests_per_s(rate);
    m->set_requests(1000);
    m->set_p50_us(p50_us);
    m->set_p99_us(p99_us);
  }
  return t;
}

// One node (index 0) at 1 Hz from second `first` to `last` after kT0, at a steady 100 req/s.
void FeedSteadySeconds(ClusterState* state, int first, int last) {
  for (int f = first; f <= last; ++f) {
    state->ApplyFrame({{0, Snapshot(f + 1, 100, 100, 900), {}}}, kT0 + qint64(f) * 1000);
  }
}

// Node n serves 100 * (n + 1) + f requests/s in frame f (one per second) with n + f % 3
// errors/s, p99 (n + 1) ms.
void FeedNodes(ClusterState* state, int nodes, int frames) {
  for (int f = 0; f < frames; ++f) {
    std::vector<ClusterState::Update> updates;
    for (int n = 0; n < nodes; ++n) {
      auto t = Snapshot(uint64_t(f + 1), 100.0 * (n + 1) + f, 200, 1000.0 * (n + 1));
      t->mutable_throughput()->set_errors_per_s(n + f % 3);
      updates.push_back({n, t, {}});
    }
    state->ApplyFrame(updates, kT0 + f * 1000);
  }
}

// A ThroughputView over `nodes` nodes at 127.0.0.1:7000 and up, shown at `size`.
struct ShownView {
  ShownView(int nodes, QSize size) : view(&state) {
    for (int n = 0; n < nodes; ++n) state.AddNode(QString("127.0.0.1:%1").arg(7000 + n));
    view.resize(size);
    view.show();
  }
  bool Exposed() { return QTest::qWaitForWindowExposed(&view); }
  ClusterState state;  // Before the view, which keeps a pointer to it.
  ThroughputView view;
};

// Counts the paint events each watched widget receives.
class PaintCounter : public QObject {
 public:
  void Watch(QWidget* widget) {
    widget->installEventFilter(this);
    counts[widget] = 0;
  }
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Paint) ++counts[watched];
    return false;
  }
  std::map<QObject*, int> counts;
};

// The labels of the dashed event lines on `plot`, in drawing order.
QStringList MarkLabels(QCustomPlot* plot) {
  QStringList labels;
  for (int i = 0; i < plot->itemCount(); ++i) {
    if (auto* text = qobject_cast<QCPItemText*>(plot->item(i))) labels << text->text();
  }
  return labels;
}

}  // namespace

class ThroughputViewTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

  void eachNodeIsOverlaidWithItsOwnColourAndLegend() {
    ShownView shown(3, {1000, 640});
    QVERIFY(shown.Exposed());
    ClusterState& state = shown.state;
    ThroughputView& view = shown.view;
    FeedNodes(&state, 3, 40);
    QCOMPARE(view.Shown(), ThroughputView::Show::kEachNode);  // The default with nodes > 1.
    QCOMPARE(view.Title(), QString("Each node (3)"));
    // One requests line per node; errors and rejections, p50 and p99 per node below.
    QCOMPARE(view.RatesPlot()->graphCount(), 3);
    QCOMPARE(view.ErrorsPlot()->graphCount(), 6);
    QCOMPARE(view.LatencyPlot()->graphCount(), 6);
    std::set<QRgb> colours;
    for (int n = 0; n < 3; ++n) {
      QCPGraph* g = view.RatesPlot()->graph(n);
      QCOMPARE(g->dataCount(), 40);
      QCOMPARE(g->data()->at(39)->value, 100.0 * (n + 1) + 39);
      colours.insert(g->pen().color().rgb());
      // The legend: the node's name with now / mean / max over the visible samples.
      QCOMPARE(g->name(), QString("127.0.0.1:%1   now %2  mean %3  max %2")
                              .arg(7000 + n)
                              .arg(100 * (n + 1) + 39)
                              .arg(100 * (n + 1) + 19.5, 0, 'f', 0));
    }
    QCOMPARE(colours.size(), size_t{3});
    // p99 on the latency plot, in ms, in the node's colour.
    QCOMPARE(view.LatencyPlot()->graph(3)->data()->at(0)->value, 2.0);
    QCOMPARE(view.LatencyPlot()->graph(3)->pen().color(),
             view.RatesPlot()->graph(1)->pen().color());

    // The other two ways stay: one node alone, the whole cluster.
    view.SetShow(ThroughputView::Show::kOneNode);
    view.SetNode(1);
    QCOMPARE(view.RatesPlot()->graphCount(), 1);
    QCOMPARE(view.RatesPlot()->graph(0)->data()->at(0)->value, 200.0);
    view.SetWholeCluster(true);
    QCOMPARE(view.RatesPlot()->graph(0)->data()->at(0)->value, 100.0 + 200 + 300);
    view.SetShow(ThroughputView::Show::kEachNode);
    QCOMPARE(view.RatesPlot()->graphCount(), 3);
    // The node selected elsewhere is drawn thicker, without a redraw of the others.
    QVERIFY(view.RatesPlot()->graph(1)->pen().widthF() >
            view.RatesPlot()->graph(0)->pen().widthF());
  }

  void overlayAtTenHertzWithAHundredNodesAppendsOnlyNewSamples() {
    ShownView shown(100, {1000, 640});
    QVERIFY(shown.Exposed());
    ClusterState& state = shown.state;
    ThroughputView& view = shown.view;
    for (int f = 0; f < 100; ++f) {
      std::vector<ClusterState::Update> updates;
      for (int n = 0; n < 100; ++n) updates.push_back({n, Snapshot(f + 1, n + f, 100, 900), {}});
      state.ApplyFrame(updates, kT0 + f * 100);
      // Each frame adds exactly one point to every node's line.
      QCOMPARE(view.RatesPlot()->graph(99)->dataCount(), f + 1);
    }
    // A line per node, and the spread's lowest, median and highest.
    QCOMPARE(view.RatesPlot()->graphCount(), 100 + 3);
    // Past the palette's ten colours, nodes still differ (3, 13 and 23 are three colours).
    std::set<QRgb> rounds;
    for (int n : {3, 13, 23}) rounds.insert(view.RatesPlot()->graph(n)->pen().color().rgb());
    QCOMPARE(rounds.size(), size_t{3});
    int listed = 0;
    for (int i = 0; i < view.RatesPlot()->legend->itemCount(); ++i) ++listed;
    QCoreApplication::processEvents();
    SaveScreenshot(&view, "throughput_overlay_100_nodes.png");
    QVERIFY(!view.ErrorsPlot()->legend->visible());  // Nobody had errors: no empty legend box.
    QCOMPARE(listed, view.LegendNodes() + 2);        // The busiest and the spread, not 100 rows,
    QVERIFY(listed >= 2);
    // and each row whole inside its chart.
    for (QCustomPlot* plot : {view.RatesPlot(), view.ErrorsPlot(), view.LatencyPlot()}) {
      plot->replot(QCustomPlot::rpImmediateRefresh);
      QVERIFY2(plot->legend->outerRect().bottom() <= plot->axisRect()->rect().bottom(),
               qPrintable(QString("legend to %1, chart to %2")
                              .arg(plot->legend->outerRect().bottom())
                              .arg(plot->axisRect()->rect().bottom())));
    }
  }

  // A frame replots the three charts and paints each once, in the window's one paint pass: the
  // controls above them are not painted again. (QCustomPlot repainted each chart at once after
  // its replot, and the view re-set a stretch factor each frame, which invalidated the layout:
  // the buttons, labels and the parents' backgrounds were painted several times a frame.)
  void aFramePaintsTheChartsOnceAndNothingElse() {
    ClusterState state;
    for (int n = 0; n < 3; ++n) state.AddNode(QString("127.0.0.1:%1").arg(7000 + n));
    QTabWidget tabs;  // As in the console's window.
    auto* view_owned = new ThroughputView(&state);
    ThroughputView& view = *view_owned;
    tabs.addTab(new QLabel("elsewhere"), "Other");
    tabs.addTab(view_owned, "Throughput");
    tabs.setCurrentIndex(1);
    tabs.resize(1000, 640);
    tabs.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tabs));
    auto frame = [&state](int f) {
      std::vector<ClusterState::Update> updates;
      for (int n = 0; n < 3; ++n) {
        auto t = Snapshot(uint64_t(f + 1), 100.0 * (n + 1) + f, 200, 1000.0 * (n + 1));
        t->mutable_throughput()->set_errors_per_s(n == 1 ? 1 + f % 3 : 0);
        updates.push_back({n, t, {}});
      }
      state.ApplyFrame(updates, kT0 + f * 100);
      QCoreApplication::processEvents();
      QCoreApplication::processEvents();
    };
    for (int f = 0; f < 5; ++f) frame(f);  // Settled: every chart has its lines and legend.
    PaintCounter counter;
    for (QCustomPlot* plot : {view.RatesPlot(), view.ErrorsPlot(), view.LatencyPlot()}) {
      counter.Watch(plot);
    }
    QList<QWidget*> controls;
    for (QWidget* child : view.findChildren<QWidget*>(Qt::FindDirectChildrenOnly)) {
      if (!qobject_cast<QCustomPlot*>(child)) {
        controls << child;
        counter.Watch(child);
      }
    }
    QVERIFY(controls.size() >= 5);
    controls << tabs.tabBar();
    counter.Watch(tabs.tabBar());
    constexpr int kFrames = 10;
    for (int f = 5; f < 5 + kFrames; ++f) frame(f);
    for (QCustomPlot* plot : {view.RatesPlot(), view.ErrorsPlot(), view.LatencyPlot()}) {
      QCOMPARE(counter.counts[plot], kFrames);
    }
    for (QWidget* control : controls) {
      QVERIFY2(counter.counts[control] == 0,
               qPrintable(QString("%1 (%2) painted %3 times")
                              .arg(control->metaObject()->className(), control->objectName())
                              .arg(counter.counts[control])));
    }
  }

  void aCrowdedOverlayDrawsTheListedNodesOverTheSpreadOfAll() {
    constexpr int kNodes = ThroughputView::kCrowdedNodes + 5;
    ShownView shown(kNodes, {1000, 640});
    QVERIFY(shown.Exposed());
    ClusterState& state = shown.state;
    ThroughputView& view = shown.view;
    view.SetNode(5);
    // Node n serves 100 + n requests/s; odd nodes have errors; nobody rejects anything.
    for (int f = 0; f < 10; ++f) {
      std::vector<ClusterState::Update> updates;
      for (int n = 0; n < kNodes; ++n) {
        auto t = Snapshot(uint64_t(f + 1), 100.0 + n, 200, 900 + 10 * n);
        t->mutable_throughput()->set_errors_per_s(n % 2);
        updates.push_back({n, t, {}});
      }
      state.ApplyFrame(updates, kT0 + f * 100);
      QCoreApplication::processEvents();  // The charts take their heights, the legend its rows.
    }
    // Who the requests/s legend lists (a graph per node, in node order, then the spread's).
    std::set<int> listed;
    for (int i = 0; i < view.RatesPlot()->legend->itemCount(); ++i) {
      auto* item = qobject_cast<QCPPlottableLegendItem*>(view.RatesPlot()->legend->item(i));
      for (int n = 0; item && n < kNodes; ++n) {
        if (view.RatesPlot()->graph(n) == item->plottable()) listed.insert(n);
      }
    }
    // The busiest (the highest node numbers) and the selected one.
    QCOMPARE(int(listed.size()), view.LegendNodes() + 1);
    QVERIFY(listed.count(5) && listed.count(kNodes - 1));
    // Only they draw lines; only the selected one its p50 and rejections; errors where a listed
    // node had some.
    for (int n = 0; n < kNodes; ++n) {
      const bool selected = n == 5, drawn = listed.count(n) > 0;
      QCOMPARE(view.RatesPlot()->graph(n)->visible(), drawn);
      QCOMPARE(view.LatencyPlot()->graph(2 * n + 1)->visible(), drawn);    // p99
      QCOMPARE(view.LatencyPlot()->graph(2 * n)->visible(), selected);     // p50
      QCOMPARE(view.ErrorsPlot()->graph(2 * n + 1)->visible(), selected);  // rejections
      QCOMPARE(view.ErrorsPlot()->graph(2 * n)->visible(), selected || (drawn && n % 2 == 1));
    }
    // Every node's spread, a point per frame: lowest, median and highest of each figure.
    using Spread = ThroughputModel::Spread;
    const ThroughputGraphs* lowest = view.SpreadGraphs(Spread::kLowest);
    const ThroughputGraphs* median = view.SpreadGraphs(Spread::kMedian);
    const ThroughputGraphs* highest = view.SpreadGraphs(Spread::kHighest);
    QVERIFY(lowest && median && highest);
    QCOMPARE(highest->requests()->dataCount(), 10);
    QCOMPARE(lowest->requests()->data()->at(9)->value, 100.0);
    QCOMPARE(median->requests()->data()->at(9)->value, 100.0 + kNodes / 2);
    QCOMPARE(highest->requests()->data()->at(9)->value, 100.0 + kNodes - 1);
    QCOMPARE(lowest->errors()->data()->at(9)->value, 0.0);
    QCOMPARE(highest->errors()->data()->at(9)->value, 1.0);
    QCOMPARE(lowest->p99()->data()->at(9)->value, 0.9);
    QCOMPARE(highest->p99()->data()->at(9)->value, 0.9 + 0.01 * (kNodes - 1));
    // The band is filled between the highest and the lowest, and the axes fit it.
    QCOMPARE(highest->requests()->channelFillGraph(), lowest->requests());
    QVERIFY(view.RatesPlot()->yAxis->range().upper >= 100.0 + kNodes - 1);
    QVERIFY(median->requests()->visible() && !median->p50()->visible());
    QVERIFY(median->InLegend() && highest->InLegend() && !lowest->InLegend());
    // A listed node draws every frame; one not drawn holds no points, and selected, it draws
    // its whole history at once.
    QCOMPARE(view.RatesPlot()->graph(kNodes - 1)->dataCount(), 10);
    QCOMPARE(view.RatesPlot()->graph(0)->dataCount(), 0);
    view.SetNode(0);
    QCOMPARE(view.RatesPlot()->graph(0)->dataCount(), 10);
    QCOMPARE(view.RatesPlot()->graph(0)->data()->at(9)->value, 100.0);
    // Another selection draws that node's lines and its secondary ones.
    view.SetNode(8);
    QVERIFY(view.RatesPlot()->graph(8)->visible());
    QVERIFY(view.LatencyPlot()->graph(2 * 8)->visible());
    QVERIFY(!view.LatencyPlot()->graph(2 * 5)->visible());
    SaveScreenshot(&view, "throughput_overlay_crowded.png");

    // A few nodes are not crowded: every line drawn.
    ClusterState few;
    for (int n = 0; n < 3; ++n) few.AddNode(QString("127.0.0.1:%1").arg(7000 + n));
    ThroughputView small(&few);
    small.resize(1000, 640);
    small.show();
    QVERIFY(QTest::qWaitForWindowExposed(&small));
    FeedNodes(&few, 3, 5);
    QVERIFY(!small.SpreadGraphs(ThroughputModel::Spread::kMedian));
    for (int g = 0; g < small.LatencyPlot()->graphCount(); ++g) {
      QVERIFY(small.LatencyPlot()->graph(g)->visible());
      QVERIFY(small.ErrorsPlot()->graph(g)->visible());
    }
  }

  // The spread's latency is over the nodes that served requests: an idle node's missing latency
  // is not a 0 ms low, and where nobody served, there is none.
  void theSpreadCountsLatencyOnlyWhereNodesServed() {
    ClusterState state;
    for (int n = 0; n < 4; ++n) state.AddNode(QString("127.0.0.1:%1").arg(7000 + n));
    ThroughputModel model(&state);
    for (int f = 0; f < 2; ++f) {
      std::vector<ClusterState::Update> updates;
      for (int n = 0; n < 4; ++n) {
        // Frame 0: node 0 idle, the others 100 * n requests/s at n ms p99; frame 1: all idle.
        const bool serving = f == 0 && n > 0;
        updates.push_back({n,
                           Snapshot(uint64_t(f + 1), serving ? 100.0 * n : 0,
                                    serving ? 500.0 * n : 0, serving ? 1000.0 * n : 0),
                           {}});
      }
      state.ApplyFrame(updates, kT0 + f * 100);
    }
    using Spread = ThroughputModel::Spread;
    const auto& lowest = model.spread(Spread::kLowest);
    const auto& median = model.spread(Spread::kMedian);
    const auto& highest = model.spread(Spread::kHighest);
    QCOMPARE(int(median.size()), 2);
    QCOMPARE(lowest[0].requests_per_s, 0.0);  // The idle node counts for rates,
    QCOMPARE(median[0].requests_per_s, 200.0);
    QCOMPARE(highest[0].requests_per_s, 300.0);
    QCOMPARE(lowest[0].p99_us, 1000.0);  // but not for latency.
    QCOMPARE(median[0].p99_us, 2000.0);
    QCOMPARE(highest[0].p99_us, 3000.0);
    QCOMPARE(lowest[0].p50_us, 500.0);
    QCOMPARE(highest[1].requests_per_s, 0.0);
    QCOMPARE(highest[1].p99_us, 0.0);  // Nobody served: no latency.
    QCOMPARE(lowest[1].t_ms, kT0 + 100);
  }

  void theOverlaidLegendKeepsItsNodesUntilTheNextRanking() {
    constexpr int kNodes = 20;
    ShownView shown(kNodes, {1000, 640});
    QVERIFY(shown.Exposed());
    ClusterState& state = shown.state;
    ThroughputView& view = shown.view;
    // Which nodes the requests/s legend lists (the rates plot has a graph per node, in order).
    auto listed = [&view] {
      std::set<int> nodes;
      QCPLegend* legend = view.RatesPlot()->legend;
      for (int i = 0; i < legend->itemCount(); ++i) {
        auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i));
        for (int n = 0; item && n < view.RatesPlot()->graphCount(); ++n) {
          if (view.RatesPlot()->graph(n) == item->plottable()) nodes.insert(n);
        }
      }
      return nodes;
    };
    // The busiest nodes change every frame (10 Hz): node n serves 100 + (7n + f) % 20.
    auto rate = [](int n, int f) { return 100.0 + (7 * n + f) % kNodes; };
    auto busiest = [&](int f) {
      std::vector<int> order(kNodes);
      for (int n = 0; n < kNodes; ++n) order[n] = n;
      std::stable_sort(order.begin(), order.end(),
                       [&](int a, int b) { return rate(a, f) > rate(b, f); });
      return std::set<int>(order.begin(), order.begin() + view.LegendNodes());
    };
    std::set<int> first;
    const int frames_per_ranking = int(ThroughputView::kLegendRerankMs / 100);
    for (int f = 0; f <= frames_per_ranking; ++f) {
      std::vector<ClusterState::Update> updates;
      for (int n = 0; n < kNodes; ++n)
        updates.push_back({n, Snapshot(f + 1, rate(n, f), 1, 9), {}});
      state.ApplyFrame(updates, kT0 + f * 100);
      if (f == 0) {
        first = listed();
        QCOMPARE(first, busiest(0));
      } else if (f < frames_per_ranking) {
        QCOMPARE(listed(), first);  // Rows that swapped at 10 Hz could not be read.
      } else {
        QCOMPARE(listed(), busiest(f));  // Ranked again after kLegendRerankMs.
      }
    }
    QVERIFY(busiest(frames_per_ranking) != first);  // Else the last check proved nothing.
  }

  void theCrosshairReadsEverySeriesAtThatTimeOnAllThreePlots() {
    ShownView shown(3, {1000, 640});
    QVERIFY(shown.Exposed());
    ClusterState& state = shown.state;
    ThroughputView& view = shown.view;
    FeedNodes(&state, 3, 40);
    for (QCustomPlot* plot : {view.RatesPlot(), view.ErrorsPlot(), view.LatencyPlot()}) {
      plot->replot(QCustomPlot::rpImmediateRefresh);
    }

    // Hover the rates plot at frame 25 (plus 400 ms: the sample at or before it counts).
    QCustomPlot* rates = view.RatesPlot();
    const double key = double(kT0 + 25 * 1000 + 400) / 1000.0;
    const QPoint at(int(std::lround(rates->xAxis->coordToPixel(key))),
                    rates->axisRect()->center().y());
    QMouseEvent move(QEvent::MouseMove, QPointF(at), rates->mapToGlobal(QPointF(at)), Qt::NoButton,
                     Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(rates, &move);
    PlotCrosshair* crosshair = view.Crosshair();
    QVERIFY(crosshair->Shown());
    const qint64 sample_ms = kT0 + 25 * 1000;
    QVERIFY(std::abs(crosshair->Key() - key) < 0.3);  // Within a pixel or so.
    // A vertical line at that time on all three plots.
    for (QCustomPlot* plot : {view.RatesPlot(), view.ErrorsPlot(), view.LatencyPlot()}) {
      int lines = 0;
      for (int i = 0; i < plot->itemCount(); ++i) {
        auto* line = qobject_cast<QCPItemLine*>(plot->item(i));
        if (!line || !line->visible()) continue;
        ++lines;
        QCOMPARE(line->start->key(), crosshair->Key());
        QCOMPARE(line->end->key(), crosshair->Key());
      }
      QCOMPARE(lines, 1);
    }
    // The readout: each node's samples at that time, plot by plot, largest first.
    const ThroughputModel* model = view.Model();
    QVector<PlotCrosshair::Value> expected;
    for (int n = 2; n >= 0; --n) {
      const auto samples = model->Samples(n, sample_ms, sample_ms);
      QCOMPARE(samples.size(), 1);
      expected.push_back(
          {0, QString("127.0.0.1:%1 requests/s").arg(7000 + n), samples[0].requests_per_s});
    }
    int checked = 0;
    for (const PlotCrosshair::Value& v : crosshair->Values()) {
      if (v.plot != 0) continue;
      QCOMPARE(v.name, expected[checked].name);
      QCOMPARE(v.value, expected[checked].value);
      ++checked;
    }
    QCOMPARE(checked, 3);
    for (const PlotCrosshair::Value& v : crosshair->Values()) {
      if (v.plot == 2 && v.name == "127.0.0.1:7001 p99") QCOMPARE(v.value, 2.0);
      if (v.plot == 1 && v.name == "127.0.0.1:7002 errors") {
        QCOMPARE(v.value, model->Samples(2, sample_ms, sample_ms)[0].errors_per_s);
      }
    }
    const QString text = crosshair->ReadoutText();
    QVERIFY2(text.startsWith(QDateTime::fromMSecsSinceEpoch(sample_ms).toString("HH:mm:ss")),
             qPrintable(text));
    QVERIFY2(text.contains(QString("127.0.0.1:7002 requests/s  %1")
                               .arg(model->Samples(2, sample_ms, sample_ms)[0].requests_per_s)),
             qPrintable(text));
    SaveScreenshot(&view, "throughput_overlay_crosshair.png");

    // Leaving the plot hides it everywhere.
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(rates, &leave);
    QVERIFY(!crosshair->Shown());
  }

  // A p50 of 40 µs printed with two decimals in ms read "0.04" (4 µs: "0.00"): the legend and the
  // crosshair readout print latency in the unit that fits, as the axis does.
  // At 10 Hz each frame refreshes only a share of the legend's figures, each entry's about every
  // kLegendFiguresMs; once frames stop, all of them are exact.
  void legendFiguresAreRefreshedInTurnAndExactOnceFramesStop() {
    const int nodes = 5;
    ShownView shown(nodes, {1000, 800});
    QVERIFY(shown.Exposed());
    ClusterState& state = shown.state;
    ThroughputView& view = shown.view;
    QVERIFY(view.LegendNodes() >= nodes);  // Every node is listed.
    // The requests/s figure "now" in each node's legend entry; -1 where it has none.
    auto shown_now = [&view](int n) {
      static const QRegularExpression now(QStringLiteral("   now (\\d+)"));
      const QRegularExpressionMatch m = now.match(view.RatesPlot()->graph(n)->name());
      return m.hasMatch() ? m.captured(1).toInt() : -1;
    };
    const qint64 frame_ms = 100;
    const int per_frame = int((nodes * frame_ms + ThroughputView::kLegendFiguresMs - 1) /
                              ThroughputView::kLegendFiguresMs);
    const int frames_per_turn = int(ThroughputView::kLegendFiguresMs / frame_ms);
    int stale_seen = 0;
    std::vector<int> before(nodes, -1);
    for (int f = 0; f < 40; ++f) {
      std::vector<ClusterState::Update> updates;
      for (int n = 0; n < nodes; ++n) {
        updates.push_back({n, Snapshot(uint64_t(f + 1), 1000.0 * (n + 1) + f, 200, 1000), {}});
      }
      state.ApplyFrame(updates, kT0 + f * frame_ms);
      // The first frames list the nodes, each with its figures.
      const bool listed = f >= 2;
      int changed = 0;
      for (int n = 0; n < nodes; ++n) {
        const int now = shown_now(n);
        changed += now != before[size_t(n)] ? 1 : 0;
        before[size_t(n)] = now;
        if (!listed) continue;
        // Never older than one turn.
        const int behind = 1000 * (n + 1) + f - now;
        QVERIFY2(behind >= 0 && behind < frames_per_turn,
                 qPrintable(QString("frame %1, node %2: shows %3").arg(f).arg(n).arg(now)));
        stale_seen += behind > 0 ? 1 : 0;
      }
      QVERIFY2(!listed || changed <= per_frame,
               qPrintable(QString("frame %1: %2 changed").arg(f).arg(changed)));
    }
    QVERIFY(stale_seen > 0);
    // Frames stop: every figure becomes exact.
    for (int n = 0; n < nodes; ++n) QTRY_COMPARE(shown_now(n), 1000 * (n + 1) + 39);
  }

  void aNodeShownAloneHasItsFiguresAtOnce() {
    ShownView shown(3, {1000, 800});
    QVERIFY(shown.Exposed());
    ClusterState& state = shown.state;
    ThroughputView& view = shown.view;
    view.SetNode(0);
    view.SetShow(ThroughputView::Show::kOneNode);
    for (int f = 0; f < 10; ++f) {
      std::vector<ClusterState::Update> updates;
      for (int n = 0; n < 3; ++n) {
        updates.push_back({n, Snapshot(uint64_t(f + 1), 1000.0 * (n + 1) + f, 200, 1000), {}});
      }
      state.ApplyFrame(updates, kT0 + f * 100);
    }
    // Checked before any event runs, so the settle timer cannot have filled them in.
    view.SetNode(1);
    view.SetShow(ThroughputView::Show::kOneNode);
    QVERIFY2(view.RatesPlot()->graph(0)->name().contains(QString("now 2009")),
             qPrintable(view.RatesPlot()->graph(0)->name()));
    SaveScreenshot(&view, "throughput_one_node.png");
    view.SetShow(ThroughputView::Show::kWholeCluster);
    QVERIFY2(view.RatesPlot()->graph(0)->name().contains(QString("now 6027")),
             qPrintable(view.RatesPlot()->graph(0)->name()));
  }

  // A full 5-minute window moves a fraction of a pixel a frame: one chart is replotted per frame,
  // in turn, and all three once frames stop. A 1-minute window moves more: all three every frame.
  void wideWindowsReplotOneChartPerFrameInTurn() {
    ShownView shown(3, {1000, 800});
    QVERIFY(shown.Exposed());
    ClusterState& state = shown.state;
    ThroughputView& view = shown.view;
    QVERIFY(view.SetWindowMinutes(5));
    const qint64 frame_ms = 100;
    int f = 0;
    auto feed = [&](int frames) {
      for (int end = f + frames; f < end; ++f) {
        std::vector<ClusterState::Update> updates;
        for (int n = 0; n < 3; ++n) {
          updates.push_back({n, Snapshot(uint64_t(f + 1), 100.0 * (n + 1) + f % 7, 200, 900), {}});
        }
        state.ApplyFrame(updates, kT0 + f * frame_ms);
      }
    };
    feed(5 * 600 + 10);  // The window is full.
    QCoreApplication::processEvents();
    const QCustomPlot* rates = view.RatesPlot();
    const double shift_px =
        rates->axisRect()->width() * double(frame_ms) / 1000.0 / rates->xAxis->range().size();
    QVERIFY2(shift_px <= ThroughputView::kInTurnShiftPx, qPrintable(QString::number(shift_px)));
    const QVector<QCustomPlot*> plots = {view.RatesPlot(), view.ErrorsPlot(), view.LatencyPlot()};
    std::vector<std::unique_ptr<QSignalSpy>> replots;
    for (QCustomPlot* plot : plots) {
      replots.push_back(std::make_unique<QSignalSpy>(plot, &QCustomPlot::afterReplot));
    }
    for (int frame = 0; frame < 9; ++frame) {
      feed(1);
      QCoreApplication::processEvents();
      int replotted = 0;
      for (const auto& spy : replots) replotted += int(spy->count());
      QCOMPARE(replotted, frame + 1);  // One chart a frame...
    }
    for (const auto& spy : replots) QCOMPARE(spy->count(), 3);  // ...each in its turn.
    // Frames stop: the two charts behind are drawn, on the newest range.
    QTRY_VERIFY(replots[0]->count() + replots[1]->count() + replots[2]->count() == 9 + 3);
    for (QCustomPlot* plot : plots) QCOMPARE(plot->xAxis->range(), rates->xAxis->range());
    QCOMPARE(qint64(std::llround(rates->xAxis->range().upper * 1000)), view.VisibleToMs());

    // One minute: about 1.5 px a frame at this width.
    QVERIFY(rates->axisRect()->width() * double(frame_ms) / 60000.0 >
            ThroughputView::kInTurnShiftPx);
    QVERIFY(view.SetWindowMinutes(1));
    QCoreApplication::processEvents();
    for (const auto& spy : replots) spy->clear();
    for (int frame = 0; frame < 3; ++frame) {
      feed(1);
      QCoreApplication::processEvents();
      for (const auto& spy : replots) QCOMPARE(spy->count(), frame + 1);
    }
  }

  void latencyBelowAMillisecondIsPrintedInMicroseconds() {
    ClusterState state;
    state.AddNode("127.0.0.1:7000", "backend-1");
    ThroughputView view(&state);
    view.resize(1000, 640);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    for (int f = 0; f < 10; ++f) {
      state.ApplyFrame({{0, Snapshot(uint64_t(f + 1), 100, 40, 2500), {}}}, kT0 + f * 1000);
    }
    QCustomPlot* latency = view.LatencyPlot();
    QStringList names;
    for (int g = 0; g < latency->graphCount(); ++g) names << latency->graph(g)->name();
    const QString all = names.join('\n');
    QVERIFY2(all.contains(QString("p50   now 40 \u00b5s  mean 40 \u00b5s  max 40 \u00b5s")),
             qPrintable(all));
    QVERIFY2(all.contains(QString("p99   now 2.50 ms  mean 2.50 ms  max 2.50 ms")),
             qPrintable(all));
    for (QCustomPlot* plot : {view.RatesPlot(), view.ErrorsPlot(), latency}) {
      plot->replot(QCustomPlot::rpImmediateRefresh);
    }
    view.Crosshair()->MoveTo(double(kT0 + 5000) / 1000.0);
    const QString text = view.Crosshair()->ReadoutText();
    QVERIFY2(text.contains(QString("p50  40 \u00b5s")), qPrintable(text));
    QVERIFY2(text.contains(QString("p99  2.50 ms")), qPrintable(text));
    QVERIFY2(text.contains(QString("requests/s  100")), qPrintable(text));
    SaveScreenshot(&view, "throughput_latency_units.png");
  }

  void restartsAndLameDuckChangesAreMarked() {
    ClusterState state;
    state.AddNode("127.0.0.1:7000", "backend-1");
    state.AddNode("127.0.0.1:7001", "backend-2");
    ThroughputView view(&state);
    view.resize(900, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // backend-1: serving, lame duck from frame 5, a new process (sequence from 1) at frame 8.
    // backend-2 serves throughout.
    for (int f = 0; f < 12; ++f) {
      const bool lame = f >= 5 && f < 8;
      const uint64_t sequence = f < 8 ? 100 + f : f - 7;
      state.ApplyFrame(
          {{0,
            Snapshot(sequence, 50, 100, 900, lame ? admin::NODE_LAME_DUCK : admin::NODE_SERVING),
            {}},
           {1, Snapshot(uint64_t(f + 1), 50, 100, 900), {}}},
          kT0 + f * 1000);
    }
    // The restart took it out of lame duck.
    const QStringList expected = {"lame duck backend-1", "restart backend-1",
                                  "lame duck left backend-1"};
    for (QCustomPlot* plot : {view.RatesPlot(), view.ErrorsPlot(), view.LatencyPlot()}) {
      QCOMPARE(MarkLabels(plot), expected);
    }
    // C12: "restart" and "lame duck left" happened at one instant; their labels were drawn over
    // each other. Now the second goes a row lower.
    view.RatesPlot()->replot(QCustomPlot::rpImmediateRefresh);
    QVector<QRectF> boxes;
    for (int i = 0; i < view.RatesPlot()->itemCount(); ++i) {
      if (auto* text = qobject_cast<QCPItemText*>(view.RatesPlot()->item(i))) {
        const QMargins pad = text->padding();
        boxes << QRectF(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition())
                     .adjusted(pad.left(), pad.top(), -pad.right(), -pad.bottom());
      }
    }
    QCOMPARE(boxes.size(), 3);
    // Each label has a background now, so their whole boxes may not overlap either.
    QVector<QRectF> whole;
    for (int i = 0; i < view.RatesPlot()->itemCount(); ++i) {
      if (auto* text = qobject_cast<QCPItemText*>(view.RatesPlot()->item(i))) {
        QVERIFY(text->brush() != Qt::NoBrush);
        whole << QRectF(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition());
      }
    }
    for (int a = 0; a < whole.size(); ++a) {
      for (int b = a + 1; b < whole.size(); ++b) {
        QVERIFY2(!whole[a].intersects(whole[b]),
                 qPrintable(QString("label boxes %1 and %2").arg(a).arg(b)));
      }
    }
    for (int a = 0; a < boxes.size(); ++a) {
      for (int b = a + 1; b < boxes.size(); ++b) {
        QVERIFY2(!boxes[a].intersects(boxes[b]),
                 qPrintable(QString("labels %1 and %2").arg(a).arg(b)));
      }
    }
    const QVector<ThroughputEvent> events =
        view.Model()->Events(ThroughputModel::kCluster, LLONG_MIN, LLONG_MAX);
    QCOMPARE(events.size(), 3);
    QCOMPARE(events[0].t_ms, kT0 + 5000);
    QCOMPARE(events[1].t_ms, kT0 + 8000);
    QCOMPARE(events[2].t_ms, kT0 + 8000);
    // Held on a range after the lame duck began: its label, whose line is off the chart, is
    // hidden (it was a clipped stub at the left edge); the two later ones show.
    view.ShowRange(kT0 + 6000, kT0 + 11000);
    QStringList shown;
    for (int i = 0; i < view.RatesPlot()->itemCount(); ++i) {
      auto* text = qobject_cast<QCPItemText*>(view.RatesPlot()->item(i));
      if (text && text->visible()) shown << text->text();
    }
    QCOMPARE(shown, QStringList({"restart backend-1", "lame duck left backend-1"}));
    view.Follow();
    // backend-2 alone has none.
    view.SetShow(ThroughputView::Show::kOneNode);
    view.SetNode(1);
    QVERIFY(MarkLabels(view.RatesPlot()).isEmpty());
  }

  // A process that says when it started: a new start is a restart even where its snapshot count
  // is past the old process's (a flight recorder's once-a-second history of a busy node), and the
  // same start is none even where the count went back.
  void aNewStartTimeIsARestartWhateverTheCount() {
    ClusterState state;
    state.AddNode("127.0.0.1:7000", "backend-1");
    ThroughputModel model(&state);
    const uint64_t sequences[] = {40, 41, 60, 61, 5};
    const int64_t starts[] = {kT0 - 5000, kT0 - 5000, kT0 + 1500, kT0 + 1500, kT0 + 1500};
    for (int f = 0; f < 5; ++f) {
      auto t = Snapshot(sequences[f], 50, 100, 900);
      t->set_started_unix_ms(starts[f]);
      state.ApplyFrame({{0, t, {}}}, kT0 + f * 1000);
    }
    const QVector<ThroughputEvent> events = model.Events(0, LLONG_MIN, LLONG_MAX);
    QCOMPARE(events.size(), 1);
    QCOMPARE(events[0].command, ThroughputEvent::kRestart);
    QCOMPARE(events[0].t_ms, kT0 + 2000);
  }

  void theLatencyAxisIsLogarithmicAndCoversP50AndP99() {
    ClusterState state;
    state.AddNode("127.0.0.1:7000", "backend-1");
    ThroughputView view(&state);
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // p50 0.1 ms, p99 40 ms: a linear axis would draw p50 on the zero line.
    for (int f = 0; f < 10; ++f) {
      state.ApplyFrame({{0, Snapshot(f + 1, 100, 100, 40000), {}}}, kT0 + f * 1000);
    }
    QCPAxis* axis = view.LatencyPlot()->yAxis;
    QCOMPARE(axis->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY(axis->label().contains("p50"));  // The p50 lines have no legend entries (C16).
    QVERIFY2(axis->range().lower < 0.1 && axis->range().lower > 0,
             qPrintable(QString::number(axis->range().lower)));
    QVERIFY(axis->range().upper > 40);
    QVERIFY(axis->range().upper < 400);  // Not a decade of empty room above.
    QVERIFY(view.LatencyNotice().isEmpty());

    // No errors: the errors plot is 0..1 and shorter than the others.
    QCOMPARE(view.ErrorsPlot()->yAxis->range().upper, 1.0);
    QCoreApplication::processEvents();
    QVERIFY(view.ErrorsPlot()->height() < view.RatesPlot()->height());
    // Its line at 0 is drawn above the axis line, not under it, where it read as a gap.
    view.ErrorsPlot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY2(
        view.ErrorsPlot()->yAxis->coordToPixel(0) < view.ErrorsPlot()->axisRect()->bottom() - 1,
        qPrintable(QString::number(view.ErrorsPlot()->yAxis->coordToPixel(0))));
    // The three time axes begin and end at the same x, whatever their value labels' widths.
    for (QCustomPlot* plot : {view.RatesPlot(), view.ErrorsPlot(), view.LatencyPlot()}) {
      plot->replot(QCustomPlot::rpImmediateRefresh);
    }
    for (QCustomPlot* plot : {view.ErrorsPlot(), view.LatencyPlot()}) {
      QCOMPARE(plot->axisRect()->left(), view.RatesPlot()->axisRect()->left());
      QCOMPARE(plot->axisRect()->right(), view.RatesPlot()->axisRect()->right());
    }
  }

  void dataWithoutLatencySaysSoInsteadOfDrawingZero() {
    ClusterState state;
    state.AddNode("127.0.0.1:7000", "backend-1");
    ThroughputView view(&state);
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    for (int f = 0; f < 10; ++f)
      state.ApplyFrame({{0, Snapshot(f + 1, 100, 0, 0), {}}}, kT0 + f * 1000);
    QVERIFY(std::isnan(view.LatencyPlot()->graph(1)->data()->at(5)->value));  // No line at 0.
    QCOMPARE(view.LatencyNotice(), QString("no latency reported"));
    view.SetRecordingSpan(kT0, kT0 + 9000);
    QCOMPARE(view.LatencyNotice(), QString("no latency in this recording"));
  }

  // The window starts at the first sample and grows until it is the chosen width.
  // Following, the rates axis grows at once for a spike, and shrinks again within
  // kLegendRerankMs once the spike has left the 1-minute window (the fit scans only new points
  // between full scans).
  void theRatesAxisFollowsASpikeInAndOut() {
    ClusterState state;
    const int node = state.AddNode("127.0.0.1:7000");
    ThroughputView view(&state);
    view.resize(800, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.SetWindowMinutes(1));
    const int spike = 100;
    int f = 0;
    auto frame = [&] {
      state.ApplyFrame({{node, Snapshot(uint64_t(f + 1), f == spike ? 5000 : 100, 200, 900), {}}},
                       kT0 + qint64(f) * 100);
      ++f;
    };
    while (f <= spike) frame();
    QCOMPARE(view.RatesPlot()->yAxis->range().upper, 5000 * 1.1);
    // The spike leaves the window 60 s later; the axis shrinks at most 5 s after that.
    const int gone = spike + 600 + 1 + int(ThroughputView::kLegendRerankMs / 100);
    while (f <= spike + 600) frame();
    QVERIFY(view.RatesPlot()->yAxis->range().upper > 1000);  // Still in the window.
    while (f <= gone) frame();
    QCOMPARE(view.RatesPlot()->yAxis->range().upper, 100 * 1.1);
  }

  void theWindowGrowsFromTheFirstSample() {
    ClusterState state;
    state.AddNode("127.0.0.1:7000", "backend-1");
    ThroughputView view(&state);
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.WindowMinutes(), 5);
    state.ApplyFrame({{0, Snapshot(1, 100, 100, 900), {}}}, kT0);
    QCOMPARE(view.VisibleToMs(), kT0);
    QCOMPARE(view.VisibleFromMs(), kT0 - ThroughputView::kMinSpanMs);
    FeedSteadySeconds(&state, 1, 60);
    QCOMPARE(view.VisibleFromMs(), kT0);  // One minute of data fills the chart.
    QCOMPARE(view.VisibleToMs(), kT0 + 60000);
    FeedSteadySeconds(&state, 61, 400);
    QCOMPARE(view.VisibleToMs() - view.VisibleFromMs(), 5 * 60 * 1000);
  }

  // Windows of hours: two hours at 1 Hz in the 1-hour window show the last hour (its older
  // part in minute buckets, a spike 50 minutes back still at its height), the axis in hours and
  // minutes; a zoom stops following and a double-click follows again.
  void aWindowOfHoursShowsItsHourAndADoubleClickFollows() {
    ClusterState state;
    state.AddNode("127.0.0.1:7000", "backend-1");
    ThroughputView view(&state);
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(!view.SetWindowMinutes(120));
    QVERIFY(view.SetWindowMinutes(60));
    const int seconds = 2 * 3600, spike = seconds - 50 * 60;
    for (int f = 0; f < seconds; ++f) {
      state.ApplyFrame({{0, Snapshot(f + 1, f == spike ? 7000 : 100, 100, 900), {}}},
                       kT0 + qint64(f) * 1000);
    }
    const qint64 last = kT0 + qint64(seconds - 1) * 1000;
    QCOMPARE(view.VisibleToMs(), last);
    QCOMPARE(view.VisibleToMs() - view.VisibleFromMs(), 60 * 60 * 1000);
    QCOMPARE(view.RatesPlot()->yAxis->range().upper, 7000 * 1.1);
    QVERIFY(view.DrawnSamples() < 3600);  // Minute buckets past 15 minutes, not 7200 points.
    auto ticker = view.RatesPlot()->xAxis->ticker().dynamicCast<QCPAxisTickerDateTime>();
    QVERIFY(ticker);
    QCOMPARE(ticker->dateTimeFormat(), QString("hh:mm"));

    view.ShowAround(last - 30 * 60 * 1000);
    QVERIFY(!view.Following());
    QTest::mouseDClick(view.RatesPlot(), Qt::LeftButton, {},
                       view.RatesPlot()->axisRect()->center());
    QVERIFY(view.Following());
    QCOMPARE(view.VisibleToMs(), last);
    QVERIFY(view.SetWindowMinutes(5));
    QCOMPARE(ticker->dateTimeFormat(), QString("hh:mm:ss"));
  }

  // A node's own past put into a hole in its series (what LiveSource's gap fill delivers): a
  // stretch it recorded throughout replaces the console's gap and its down/up marks; a stretch
  // it recorded only the start of (it went down) keeps a gap after its last snapshot, and the
  // marks; a past over what the console polled changes nothing.
  void aNodesPastFillsTheHoleTheConsoleHad() {
    for (const bool whole : {true, false}) {
      ClusterState state;  // Stale after 5 s.
      state.AddNode("127.0.0.1:7000", "backend-1");
      ThroughputModel model(&state);
      FeedSteadySeconds(&state, 0, 10);
      state.Tick(kT0 + 16 * 1000);  // Unreachable to the console from 15 s.
      QVERIFY(model.series(0).back().IsGap());
      FeedSteadySeconds(&state, 21, 25);
      const auto marks = [&model] {
        QStringList out;
        for (const ThroughputEvent& e : model.Events(0, LLONG_MIN, LLONG_MAX)) out << e.command;
        return out;
      };
      QCOMPARE(marks(), (QStringList{ThroughputEvent::kDown, ThroughputEvent::kUp}));
      std::vector<std::shared_ptr<const admin::Telemetry>> past;
      for (int second = 11; second <= (whole ? 20 : 13); ++second) {
        auto t = Snapshot(uint64_t(second + 1), 300, 100, 900);
        t->set_unix_ms(kT0 + second * 1000);
        past.push_back(t);
      }
      QSignalSpy cleared(&model, &ThroughputModel::Cleared);
      state.ApplyNodePast(0, past);
      QCOMPARE(cleared.count(), 1);
      const ThroughputModel::Series& series = model.series(0);
      int gaps = 0, recorded = 0;
      for (size_t i = 0; i < series.size(); ++i) {
        if (i > 0) QVERIFY(series[i - 1].t_ms <= series[i].t_ms);
        gaps += series[i].IsGap() ? 1 : 0;
        recorded += series[i].requests_per_s == 300 ? 1 : 0;
      }
      QCOMPARE(recorded, whole ? 10 : 3);
      QCOMPARE(series.size(), size_t(11 + recorded + 5 + gaps));
      if (whole) {
        QCOMPARE(gaps, 0);
        QCOMPARE(marks(), QStringList());
      } else {
        QCOMPARE(gaps, 1);  // 5 s after its last snapshot (13 s), as live.
        QCOMPARE(model.Samples(0, kT0 + 18 * 1000, kT0 + 18 * 1000).size(), 1);
        QVERIFY(model.Samples(0, kT0 + 18 * 1000, kT0 + 18 * 1000).front().IsGap());
        QCOMPARE(marks(), (QStringList{ThroughputEvent::kDown, ThroughputEvent::kUp}));
      }
      // What the console polled stays: a past over it puts nothing in.
      std::vector<std::shared_ptr<const admin::Telemetry>> polled;
      auto t = Snapshot(99, 7, 100, 900);
      t->set_unix_ms(kT0 + 5 * 1000 + 500);
      polled.push_back(t);
      state.ApplyNodePast(0, polled);
      QCOMPARE(cleared.count(), 1);
    }
  }

  // The console stamps a sample when it arrives, a few milliseconds after the node's clock stamped
  // it; the gap fill asks the node's recorder for what came after the node's stamp, so its first
  // snapshot can fall before the console's stamp of the last sample it heard. That sample and the
  // gap after it are still the hole's: the past fills it (a gap left "3 ms into the silence" was a
  // flaky failure of the real-node test in tst_live_source).
  void aPastStartingBeforeTheConsolesLastStampFillsTheHole() {
    ClusterState state;  // Stale after 5 s.
    state.AddNode("127.0.0.1:7000", "backend-1");
    ThroughputModel model(&state);
    constexpr qint64 kLate = 3;  // The console's stamp trails the node's by this.
    auto feed = [&state](int first, int last) {
      for (int f = first; f <= last; ++f) {
        auto t = Snapshot(uint64_t(f + 1), 100, 100, 900);
        t->set_unix_ms(kT0 + qint64(f) * 1000);
        state.ApplyFrame({{0, t, {}}}, kT0 + qint64(f) * 1000 + kLate);
      }
    };
    feed(0, 10);
    state.Tick(kT0 + 16 * 1000);
    QVERIFY(model.series(0).back().IsGap());
    feed(21, 25);
    std::vector<std::shared_ptr<const admin::Telemetry>> past;
    for (qint64 ms = 10 * 1000 + 1; ms < 21 * 1000; ms += 1000) {  // From the node's 10 s + 1 ms.
      auto t = Snapshot(uint64_t(ms / 1000 + 1), 300, 100, 900);
      t->set_unix_ms(kT0 + ms);
      past.push_back(t);
    }
    QSignalSpy cleared(&model, &ThroughputModel::Cleared);
    state.ApplyNodePast(0, past);
    QCOMPARE(cleared.count(), 1);
    const ThroughputModel::Series& series = model.series(0);
    int recorded = 0;
    for (size_t i = 0; i < series.size(); ++i) {
      if (i > 0) QVERIFY(series[i - 1].t_ms <= series[i].t_ms);
      QVERIFY2(!series[i].IsGap(), qPrintable(QString("a gap at %1 ms").arg(series[i].t_ms - kT0)));
      recorded += series[i].requests_per_s == 300 ? 1 : 0;
    }
    QCOMPARE(recorded, int(past.size()));
    // The console's 0..9 s, the node's record from 10 s + 1 ms, the console's 21..25 s.
    QCOMPARE(series.size(), size_t(10 + past.size() + 5));
    QVERIFY(model.Events(0, LLONG_MIN, LLONG_MAX).isEmpty());  // It never went down.
  }

  // A past put before the series (the day behind a backfill) from an earlier process of the
  // node: a restart mark where it meets the series' oldest sample; an older past still from that
  // same earlier process meets the first past with no mark.
  void aPastBeforeTheSeriesMarksTheRestartWhereTheyMeet() {
    ClusterState state;
    state.AddNode("127.0.0.1:7000", "backend-1");
    ThroughputModel model(&state);
    auto at = [](int second, qint64 started) {
      auto t = Snapshot(uint64_t(second + 1), 100, 100, 900);
      t->set_unix_ms(kT0 + second * 1000);
      t->set_started_unix_ms(started);
      return t;
    };
    for (int second = 100; second <= 105; ++second) {
      state.ApplyFrame({{0, at(second, kT0 + 99 * 1000), {}}}, kT0 + second * 1000);
    }
    auto restarts = [&model] {
      QVector<qint64> out;
      for (const ThroughputEvent& e : model.Events(0, LLONG_MIN, LLONG_MAX)) {
        if (e.command == ThroughputEvent::kRestart) out << (e.t_ms - kT0) / 1000;
      }
      return out;
    };
    std::vector<std::shared_ptr<const admin::Telemetry>> earlier;
    for (int second = 50; second <= 60; ++second) earlier.push_back(at(second, kT0));
    state.ApplyNodePast(0, earlier);
    QCOMPARE(restarts(), QVector<qint64>{100});
    std::vector<std::shared_ptr<const admin::Telemetry>> older;
    for (int second = 10; second <= 20; ++second) older.push_back(at(second, kT0));
    state.ApplyNodePast(0, older);
    QCOMPARE(restarts(), QVector<qint64>{100});
    QCOMPARE(model.series(0).front().t_ms, kT0 + 10 * 1000);
  }

  // Time as in Grafana: a drag across a chart zooms every chart to the dragged range and stops
  // following; a drag shorter than a click's wobble does nothing; Shift+drag pans without
  // zooming; a double-click follows again.
  void aDragZoomsToItsRangeAndShiftDragPans() {
    ClusterState state;
    state.AddNode("127.0.0.1:7000", "backend-1");
    ThroughputView view(&state);
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    FeedSteadySeconds(&state, 0, 300);
    const qint64 last = kT0 + 300 * 1000;
    QCOMPARE(view.VisibleToMs(), last);
    QCustomPlot* rates = view.RatesPlot();
    rates->replot();  // The axis rect's geometry, as drawn.
    const QRect area = rates->axisRect()->rect();
    const int y = area.center().y();
    const QPoint from(area.left() + area.width() / 4, y), to(area.left() + area.width() / 2, y);
    const double from_s = rates->xAxis->pixelToCoord(from.x());
    const double to_s = rates->xAxis->pixelToCoord(to.x());
    auto drag = [rates](QPoint a, QPoint b, Qt::KeyboardModifiers modifiers) {
      QTest::mousePress(rates, Qt::LeftButton, modifiers, a);
      QTest::mouseMove(rates, (a + b) / 2);
      QTest::mouseMove(rates, b);
      QTest::mouseRelease(rates, Qt::LeftButton, modifiers, b);
    };

    drag(from, from + QPoint(TimeAxisDrag::kMinDragPx - 2, 0), {});
    QCOMPARE(view.VisibleToMs(), last);  // A wobble, not a zoom.

    // Seen while dragging: the selected range drawn over the charts.
    QTest::mousePress(rates, Qt::LeftButton, {}, from);
    QTest::mouseMove(rates, (from + to) / 2);
    QTest::mouseMove(rates, to);
    rates->replot();
    SaveScreenshot(&view, "throughput_drag_to_zoom.png");
    QTest::mouseRelease(rates, Qt::LeftButton, {}, to);
    QVERIFY(!view.Following());
    QVERIFY2(std::abs(rates->xAxis->range().lower - from_s) < 0.01 &&
                 std::abs(rates->xAxis->range().upper - to_s) < 0.01,
             qPrintable(QString("dragged %1..%2 s, shows %3..%4")
                            .arg(from_s - kT0 / 1000.0)
                            .arg(to_s - kT0 / 1000.0)
                            .arg(rates->xAxis->range().lower - kT0 / 1000.0)
                            .arg(rates->xAxis->range().upper - kT0 / 1000.0)));
    QCOMPARE(view.ErrorsPlot()->xAxis->range(), rates->xAxis->range());
    QCOMPARE(view.LatencyPlot()->xAxis->range(), rates->xAxis->range());
    // New samples do not move a zoomed chart.
    const QCPRange zoomed = rates->xAxis->range();
    state.ApplyFrame({{0, Snapshot(302, 100, 100, 900), {}}}, last + 1000);
    QCOMPARE(rates->xAxis->range(), zoomed);

    drag(to, from, Qt::ShiftModifier);  // Pans to later times by the dragged distance.
    const QCPRange panned = rates->xAxis->range();
    QVERIFY2(std::abs(panned.size() - zoomed.size()) < 1e-6,
             qPrintable(QString("width %1 s, was %2").arg(panned.size()).arg(zoomed.size())));
    const double expected_s = zoomed.size() * (to.x() - from.x()) / area.width();
    const double pixel_s = zoomed.size() / area.width();
    QVERIFY2(std::abs(panned.lower - zoomed.lower - expected_s) <= 2 * pixel_s,
             qPrintable(QString("moved by %1 s, dragged %2 s")
                            .arg(panned.lower - zoomed.lower)
                            .arg(expected_s)));

    QTest::mouseDClick(rates, Qt::LeftButton, {}, area.center());
    QVERIFY(view.Following());
    QCOMPARE(view.VisibleToMs(), last + 1000);
  }

  // A custom range: "Range..." offers the visible range, refuses an end before its start, and
  // shows exactly what was entered (to the second), stopping following; a range of days shows
  // dates on the time axis.
  void aCustomRangeShowsWhatWasEntered() {
    ClusterState state;
    state.AddNode("127.0.0.1:7000", "backend-1");
    ThroughputView view(&state);
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    FeedSteadySeconds(&state, 0, 600);
    TimeRangeDialog* dialog = view.AskRange();
    QVERIFY(dialog->isVisible());
    QCOMPARE(dialog->Range().from_ms, view.VisibleFromMs() / 1000 * 1000);
    QCOMPARE(dialog->Range().to_ms, (view.VisibleToMs() + 999) / 1000 * 1000);
    dialog->SetRange({kT0 + 200 * 1000, kT0 + 100 * 1000});
    QVERIFY(!dialog->CanAccept());
    dialog->SetRange({kT0 + 100 * 1000, kT0 + 250 * 1000});
    QVERIFY(dialog->CanAccept());
    dialog->accept();
    QVERIFY(!view.Following());
    QCOMPARE(view.VisibleFromMs(), kT0 + 100 * 1000);
    QCOMPARE(view.VisibleToMs(), kT0 + 250 * 1000);
    QCOMPARE(view.ErrorsPlot()->xAxis->range(), view.RatesPlot()->xAxis->range());

    view.ShowRange(kT0 - 2 * 86400 * 1000, kT0 + 600 * 1000);
    auto ticker = view.RatesPlot()->xAxis->ticker().dynamicCast<QCPAxisTickerDateTime>();
    QVERIFY(ticker);
    QCOMPARE(ticker->dateTimeFormat(), QString("MM-dd hh:mm"));
    view.Follow();
    QCOMPARE(view.VisibleToMs(), kT0 + 600 * 1000);
    QCOMPARE(ticker->dateTimeFormat(), QString("hh:mm:ss"));
  }

  // B15: with no data the time axis ends now (live), not at 1970's midnight.
  void anEmptyChartIsAnchoredToNow() {
    ClusterState state;
    const int node = state.AddNode("127.0.0.1:9");
    ThroughputView view(&state);
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const qint64 before = QDateTime::currentMSecsSinceEpoch();
    view.SetNode(node);
    QVERIFY(view.VisibleToMs() >= before);
    QVERIFY(view.VisibleToMs() <= QDateTime::currentMSecsSinceEpoch() + 1);
    QCOMPARE(view.VisibleToMs() - view.VisibleFromMs(), 5 * 60 * 1000);
    // The node never answers; the cluster clock moves on and the axis with it.
    state.ApplyFrame({{node, nullptr, "connection refused"}}, kT0);
    QCOMPARE(view.VisibleToMs(), kT0);
    SaveScreenshot(&view, "throughput_empty.png");
  }

  // C6: a 40 s outage was drawn as a ramp from the last figure to the next, with no mark. Now the
  // series has a gap from the moment the node was first seen failing, the chart's line breaks
  // there, "down" and "up" are marked, and the gap survives downsampling.
  void anOutageIsAGapWithDownAndUpMarks() {
    ShownView shown(2, {900, 600});  // Each node: node 0's own line (node 1 stays silent).
    QVERIFY(shown.Exposed());
    ClusterState& state = shown.state;
    ThroughputView& view = shown.view;
    for (int f = 0; f < 10; ++f)
      state.ApplyFrame({{0, Snapshot(f + 1, 8000, 200, 900), {}}}, kT0 + f * 100);
    const qint64 down_at = kT0 + 1000;
    state.ApplyFrame({{0, nullptr, "connection refused"}}, down_at);
    for (int f = 1; f <= 400; ++f) state.Tick(down_at + f * 100);  // 40 s unreachable.
    const qint64 up_at = down_at + 41000;
    for (int f = 0; f < 10; ++f) {
      state.ApplyFrame({{0, Snapshot(100 + f, 7000, 200, 900), {}}}, up_at + f * 100);
    }
    const ThroughputModel::Series& series = view.Model()->series(0);
    int gaps = 0;
    qint64 gap_at = 0;
    for (size_t i = 0; i < series.size(); ++i) {
      if (series[i].IsGap()) {
        ++gaps;
        gap_at = series[i].t_ms;
      }
    }
    QCOMPARE(gaps, 1);
    QCOMPARE(gap_at, down_at);
    const QVector<ThroughputEvent> events = view.Model()->Events(0, LLONG_MIN, LLONG_MAX);
    QStringList marks;
    for (const ThroughputEvent& e : events) marks << e.command;
    QVERIFY2(marks.contains(ThroughputEvent::kDown) && marks.contains(ThroughputEvent::kUp),
             qPrintable(marks.join(", ")));
    // The drawn line breaks: a NaN between the figures before and after.
    QCPGraph* requests = view.RatesPlot()->graph(0);
    bool broken = false;
    for (auto it = requests->data()->constBegin(); it != requests->data()->constEnd(); ++it) {
      broken = broken || std::isnan(it->value);
    }
    QVERIFY2(broken, qPrintable(QString("%1 graphs, %2 points, title %3")
                                    .arg(view.RatesPlot()->graphCount())
                                    .arg(requests->dataCount())
                                    .arg(view.Title())));
    SaveScreenshot(&view, "throughput_outage_gap.png");

    // Older than the full resolution, samples are downsampled: the gap stays.
    ThroughputSeries old_series;
    const qint64 t0 = 0;
    for (qint64 t = t0; t < t0 + ThroughputSeries::kFullResolutionMs + 60000; t += 100) {
      if (t == t0 + 5000) {
        old_series.push_back(ThroughputSample::Gap(t));
      } else if (t < t0 + 5000 || t >= t0 + 15000) {
        old_series.push_back({t, 100, 0, 0, 200, 900});
      }
    }
    QVERIFY(old_series.DownsampledBeforeMs() > t0 + 15000);
    bool kept = false;
    for (size_t i = 0; i < old_series.size(); ++i) kept = kept || old_series[i].IsGap();
    QVERIFY(kept);
  }

  // C14: with "Each node" shown, Export CSV wrote one unnamed series (the selected node's).
  void csvExportWritesEverySeriesShownByName() {
    ShownView shown(3, {1000, 640});
    QVERIFY(shown.Exposed());
    FeedNodes(&shown.state, 3, 10);
    QCOMPARE(shown.view.Shown(), ThroughputView::Show::kEachNode);
    QTemporaryDir dir;
    const QString path = dir.filePath("each.csv");
    QString error;
    QVERIFY2(shown.view.ExportCsv(path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    QVERIFY(lines[0].startsWith("node,time_unix_ms,requests_per_s"));
    QCOMPARE(lines.size(), 1 + 3 * 10);
    for (int n = 0; n < 3; ++n) {
      const QByteArray name = QByteArray("127.0.0.1:") + QByteArray::number(7000 + n);
      QCOMPARE(lines[1 + n * 10].split(',')[0], name);
      QCOMPARE(lines[1 + n * 10].split(',')[2].toDouble(), 100.0 * (n + 1));
    }
  }

  // docs/figures.md: a client's requests are the calls it made. The demo's clients report them in
  // their pools' ClientThroughput and serve nothing; Throughput charted them at 0 while the
  // Overview showed thousands of calls a second (C3). The cluster line still counts only what
  // servers served, so a watched client's calls are not counted twice.
  void aClientIsChartedByTheCallsItMade() {
    ClusterState state;
    const int server = state.AddNode("127.0.0.1:7001", "server");
    const int client = state.AddNode("127.0.0.1:7101", "client");
    ThroughputModel model(&state);
    for (int f = 0; f < 3; ++f) {
      auto served = std::make_shared<admin::Telemetry>();
      served->set_node("server");
      served->set_role(admin::ROLE_SERVER);
      served->mutable_throughput()->set_requests_per_s(4500);
      auto calls = std::make_shared<admin::Telemetry>();
      calls->set_node("client");
      calls->set_role(admin::ROLE_CLIENT);
      admin::ClientThroughput* t = calls->add_pools()->mutable_throughput();
      t->set_requests_per_s(4500);
      t->set_errors_per_s(2);
      t->set_p99_us(900);
      const qint64 at = kT0 + f * 100;
      state.ApplyFrame({{server, served, {}, at}, {client, calls, {}, at}}, at);
    }
    const ThroughputSample& c = model.series(client).back();
    QCOMPARE(c.requests_per_s, 4500.0);
    QCOMPARE(c.errors_per_s, 2.0);
    QCOMPARE(c.p99_us, 900.0);
    QCOMPARE(model.series(ThroughputModel::kCluster).back().requests_per_s, 4500.0);
  }
};

RAILYARD_QTEST_MAIN(ThroughputViewTest)
#include "tst_throughput_view.moc"
