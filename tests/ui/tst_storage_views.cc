// SPDX-License-Identifier: Apache-2.0
// The compaction, Bloom and throughput views, built offscreen against telemetry from a real node
// on loopback; each writes a screenshot for people to look at.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QImage>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <cmath>

#include "tests/support/qtest_main.h"
#include "tests/ui/screenshot.h"
#include "tests/ui/storage_test_node.h"
#include "tests/ui/ui_test_support.h"
#include "ui/views/bloom_view.h"
#include "ui/views/compaction_view.h"
#include "ui/views/index_stack_widget.h"
#include "ui/views/plot_event_marks.h"
#include "ui/views/qcustomplot_include.h"
#include "ui/views/throughput_graphs.h"
#include "ui/views/throughput_view.h"

using namespace railyard;
using namespace railyard::ui;
using railyard::ui::testing::StorageTestNode;
using railyard::ui::testing::WaitFor;

using railyard::ui::testing::SaveScreenshot;

namespace {

// A graph's data as stored, spare room included (QCPDataContainer keeps it protected).
struct StoragePeek : QCPGraphDataContainer {
  static constexpr auto kData = &StoragePeek::mData;
};
const QVector<QCPGraphData>& Storage(const QCPGraphDataContainer& data) {
  return data.*StoragePeek::kData;
}

}  // namespace
namespace {

// 3000 + 250 distinct ids with a 500-entry in-memory index, flushed: the seed's rule leaves three
// indexes (250, 1000 and 2000 entries); then 200 more that stay in memory.
bool ThreeIndexesAndAPartlyFullMemtable(StorageTestNode& node) {
  return node.Put(1, 3000) && node.Put(10001, 250) && node.node().store().Flush().ok() &&
         node.Put(20001, 200);
}

// Node `node`'s telemetry: serving at `requests_per_s`, one method with that rate and these
// latencies, and the commands it ran lately (as a node repeats them in every snapshot).
std::shared_ptr<admin::Telemetry> Serving(
    double requests_per_s, double p50_us, double p99_us,
    const std::vector<std::pair<qint64, std::string>>& ran = {}) {
  auto t = std::make_shared<admin::Telemetry>();
  t->set_state(admin::NODE_SERVING);
  t->mutable_throughput()->set_requests_per_s(requests_per_s);
  admin::MethodStats* m = t->mutable_throughput()->add_methods();
  m->set_requests_per_s(requests_per_s);
  m->set_requests(1000);
  m->set_p50_us(p50_us);
  m->set_p99_us(p99_us);
  for (const auto& [unix_ms, command] : ran) {
    admin::CommandEvent* e = t->add_recent_commands();
    e->set_unix_ms(unix_ms);
    e->set_command(command);
    e->set_result("OK");
  }
  return t;
}

// `view` on screen at 800 x 500, a minute wide, showing one node (or, ticked, the cluster).
bool ShowOneMinuteOfOneNode(ThroughputView& view) {
  view.resize(800, 500);
  view.show();
  if (!QTest::qWaitForWindowExposed(&view) || !view.SetWindowMinutes(1)) return false;
  view.SetShow(ThroughputView::Show::kOneNode);
  return true;
}

// The vertical event lines on `plot`: their time (s) and the label drawn beside each.
QList<QPair<double, QString>> EventMarks(QCustomPlot* plot) {
  QList<QPair<double, QString>> marks;
  QList<double> keys;
  QStringList labels;
  for (int i = 0; i < plot->itemCount(); ++i) {
    if (auto* line = qobject_cast<QCPItemStraightLine*>(plot->item(i))) {
      if (line->point2->key() != line->point1->key()) return {};  // Not vertical.
      keys << line->point1->key();
    } else if (auto* text = qobject_cast<QCPItemText*>(plot->item(i))) {
      labels << text->text();
    }
  }
  if (keys.size() != labels.size()) return {};
  for (int i = 0; i < keys.size(); ++i) marks.push_back({keys[i], labels[i]});
  return marks;
}

}  // namespace

class StorageViewsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Figures are checked as an English locale writes them, whatever the machine's.
  void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

  void compactionViewShowsARealNode() {
    StorageTestNode node;
    QVERIFY2(node.Start(), qPrintable(node.error()));
    QVERIFY2(ThreeIndexesAndAPartlyFullMemtable(node), qPrintable(node.error()));
    ClusterState state;
    const int index = node.Feed(&state);
    QVERIFY(index >= 0);

    CompactionView view(&state);
    QAbstractItemModel* timeline = view.Timeline()->model();
    QVERIFY(timeline == view.Model()->History());
    QAbstractItemModelTester tester(timeline,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.resize(900, 640);
    view.SetNode(index);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    const CompactionModel& model = *view.Model();
    QCOMPARE(model.Indexes().size(), 3);
    QCOMPARE(model.Indexes()[0].entries, quint64{250});
    QCOMPARE(model.Indexes()[2].entries, quint64{2000});
    QCOMPARE(view.IndexStack()->MemoryText(), QString("memory  200 / 500"));
    QCOMPARE(timeline->rowCount(), int(model.Compactions().size()));
    QVERIFY(timeline->rowCount() >= 7);  // Seven flushes, some merging.
    QCOMPARE(timeline->columnCount(), 6);
    QCOMPARE(timeline->headerData(1, Qt::Horizontal).toString(), QString("Compaction set"));
    QVERIFY(timeline->index(0, 1).data().toString().startsWith("mem"));
    QVERIFY(view.WriteAmplificationText().contains(
        QString::number(model.WriteAmplification(), 'f', 2)));

    // Bars are as wide as their share of the largest index.
    IndexStackWidget* stack = view.IndexStack();
    QVERIFY(stack->BarRect(2).width() > stack->BarRect(1).width());
    QVERIFY(stack->BarRect(1).width() > stack->BarRect(0).width());

    QVERIFY(stack->DescribeRow(2).contains(
        QString("index #%1\n2,000 entries").arg(model.Indexes()[2].id)));
    QVERIFY(stack->DescribeRow(3).isEmpty());

    // Select the two newest by click and shift-click; ask to compact them.
    QVERIFY(!view.CompactSelectedButton()->isEnabled());
    QTest::mouseClick(stack, Qt::LeftButton, {}, stack->BarRect(0).center());
    QCOMPARE(stack->SelectedIds(), (QVector<quint64>{model.Indexes()[0].id}));
    QVERIFY(!view.CompactSelectedButton()->isEnabled());  // One index is not a set.
    QTest::mouseClick(stack, Qt::LeftButton, Qt::ShiftModifier, stack->BarRect(1).center());
    const QVector<quint64> pair = {model.Indexes()[0].id, model.Indexes()[1].id};
    QCOMPARE(stack->SelectedIds(), pair);
    QVERIFY(view.CompactSelectedButton()->isEnabled());
    QSignalSpy requested(&view, &CompactionView::CompactRequested);
    QTest::mouseClick(view.CompactSelectedButton(), Qt::LeftButton);
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested[0][0].toInt(), index);
    QCOMPARE(requested[0][1].value<QVector<quint64>>(), pair);
    SaveScreenshot(&view, "compaction_view.png");
    QTest::mouseClick(view.CompactAllButton(), Qt::LeftButton);
    QCOMPARE(requested.count(), 2);
    QVERIFY(requested[1][1].value<QVector<quint64>>().isEmpty());

    // Read-only: everything still shown, nothing can be asked for.
    view.SetActionsEnabled(false);
    QVERIFY(!view.CompactSelectedButton()->isEnabled());
    QVERIFY(!view.CompactAllButton()->isEnabled());
    view.RequestCompactAll();
    QCOMPARE(requested.count(), 2);
    QCOMPARE(timeline->rowCount(), int(model.Compactions().size()));

    // The node compacts everything: the next frame shows one index, and the selection is gone.
    QVERIFY(node.node().store().CompactAll().ok());
    QVERIFY(node.Feed(&state) == index);
    QCOMPARE(model.Indexes().size(), 1);
    QVERIFY(stack->SelectedIds().isEmpty());
    QCOMPARE(timeline->index(0, 5).data().toString(), QString("manual"));
    QCOMPARE(timeline->rowCount(), int(model.Compactions().size()));
  }

  void bloomViewShowsARealNode() {
    StorageTestNode node;
    QVERIFY2(node.Start(), qPrintable(node.error()));
    QVERIFY2(ThreeIndexesAndAPartlyFullMemtable(node), qPrintable(node.error()));
    // Hot reads on the newest ids and misses: pages earn usefulness and the pager picks.
    QCOMPARE(node.Get(10001, 250), 250);
    QCOMPARE(node.Get(50001, 400), 400);
    ClusterState state;
    int index = -1;
    QVERIFY(WaitFor([&] {
      index = node.Feed(&state);
      int useful = 0;
      for (const admin::BloomPage& p : state.Node(index).telemetry->storage().bloom_pages()) {
        if (p.resident() && p.usefulness() > 0) ++useful;
      }
      return useful > 3;
    }));

    BloomView view(&state);
    view.resize(900, 520);
    view.SetNode(index);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const BloomModel& model = *view.Model();
    QCOMPARE(model.RowCount(), 3);
    QCPColorMapData* data = view.ColorMap()->data();
    QCOMPARE(data->keySize(), model.ColumnCount());
    QCOMPARE(data->valueSize(), model.RowCount());
    int marked = 0;
    for (int r = 0; r < model.RowCount(); ++r) {
      for (int c = 0; c < model.ColumnCount(); ++c) {
        const BloomCell* cell = model.Cell(r, c);
        if (cell) {
          QCOMPARE(data->cell(c, r), cell->usefulness);
          marked += cell->resident ? 1 : 0;
        } else {
          QVERIFY(std::isnan(data->cell(c, r)));  // Drawn transparent.
        }
      }
    }
    QCOMPARE(view.ResidentMarks()->dataCount(), marked);
    QCOMPARE(marked, model.ResidentPages());
    QVERIFY(view.BudgetText().contains(
        QString("%1 of %2 pages resident").arg(model.ResidentPages()).arg(model.TotalPages())));

    // Hovering a cell shows its figures.
    view.Plot()->replot();
    const QPoint centre = view.CellCenter(1, 3);
    int row = -1, page = -1;
    QVERIFY(view.CellAt(centre, &row, &page));
    QCOMPARE(row, 1);
    QCOMPARE(page, 3);
    QCOMPARE(view.ToolTipAt(centre), model.DescribeCell(1, 3));
    QVERIFY(view.ToolTipAt(centre).contains(QString("index #%1, page 3").arg(model.Row(1).index)));
    QHelpEvent help(QEvent::ToolTip, centre, view.Plot()->mapToGlobal(centre));
    QApplication::sendEvent(view.Plot(), &help);
    QCOMPARE(QToolTip::text(), model.DescribeCell(1, 3));
    QVERIFY(view.ToolTipAt(QPoint(1, 1)).isEmpty());  // Outside the grid.
    SaveScreenshot(&view, "bloom_view.png");
    QToolTip::hideText();
  }

  // A small node has one Bloom page per index; QCPColorMap draws nothing for a one-cell-wide
  // map, so the view must still fill the cell, centred on page 0.
  void bloomViewPaintsIndexesOfASinglePage() {
    auto telemetry = std::make_shared<admin::Telemetry>();
    admin::StorageStats* storage = telemetry->mutable_storage();
    storage->set_bloom_budget_bytes(1 << 20);
    for (uint64_t index : {9, 8}) {
      admin::IndexInfo* info = storage->add_indexes();
      info->set_id(index);
      info->set_bloom_pages(1);
      admin::BloomPage* page = storage->add_bloom_pages();
      page->set_index(index);
      page->set_page(0);
      page->set_usefulness(index == 9 ? 40 : 10);
      page->set_resident(index == 9);
    }
    ClusterState state;
    const int node = state.AddNode("127.0.0.1:7000", "tiny");
    state.ApplyFrame({{node, telemetry}}, 1000);
    BloomView view(&state);
    view.resize(700, 400);
    view.SetNode(node);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.Model()->ColumnCount(), 1);
    view.Plot()->replot();
    const QImage image = view.Plot()->toPixmap().toImage();
    for (int row = 0; row < 2; ++row) {
      // Off the resident mark's outline, inside the cell: the gradient's colour for its value.
      const QPoint inside = view.CellCenter(row, 0) + QPoint(0, 10);
      const QColor want = view.ColorMap()->gradient().color(view.Model()->Cell(row, 0)->usefulness,
                                                            view.ColorMap()->dataRange());
      const QColor got = image.pixelColor(inside);
      const int distance = std::abs(got.red() - want.red()) + std::abs(got.green() - want.green()) +
                           std::abs(got.blue() - want.blue());
      QVERIFY2(
          distance < 24,
          qPrintable(QString("row %1: painted %2, want %3").arg(row).arg(got.name(), want.name())));
      QCOMPARE(view.ToolTipAt(view.CellCenter(row, 0)), view.Model()->DescribeCell(row, 0));
    }
    SaveScreenshot(&view, "bloom_view_single_page.png");
  }

  // A node added by address is named by its first telemetry; the chart's title follows.
  void throughputViewTitleFollowsTheNodesName() {
    ClusterState state;
    const int node = state.AddNode("127.0.0.1:7000");
    ThroughputView view(&state);
    view.resize(700, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.SetNode(node);
    QCOMPARE(view.Title(), QString("127.0.0.1:7000"));
    auto telemetry = std::make_shared<admin::Telemetry>();
    telemetry->set_node("named-later");
    telemetry->mutable_throughput()->set_requests_per_s(10);
    state.ApplyFrame({{node, telemetry}}, 1000);
    QCOMPARE(view.Title(), QString("named-later"));
  }

  void throughputViewShowsARealNode() {
    StorageTestNode node;
    QVERIFY2(node.Start(), qPrintable(node.error()));
    ClusterState state;
    ThroughputView view(&state);
    view.resize(900, 640);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.SetWindowMinutes(1));
    QVERIFY(!view.SetWindowMinutes(3));

    // Twenty frames two seconds apart on the cluster clock, each after real traffic.
    const qint64 t0 = QDateTime::currentMSecsSinceEpoch();
    int index = -1;
    for (int i = 0; i < 20; ++i) {
      QVERIFY(node.Put(uint64_t(i) * 100 + 1, 40 + 5 * i));
      node.Get(uint64_t(i) * 100 + 1, 80);
      index = node.Feed(&state, t0 + i * 2000);
    }
    QCOMPARE(view.DrawnSamples(), 20);  // The cluster: one node.
    const qint64 last = t0 + 19 * 2000;
    QCOMPARE(view.VisibleToMs(), last);
    // 38 s of samples in a 1-minute window: the window starts at the first sample (no empty
    // part) until the samples fill it.
    QCOMPARE(view.VisibleFromMs(), view.Model()->series(ThroughputModel::kCluster).front().t_ms);
    QVERIFY(view.RatesPlot()->yAxis->range().upper > 0);
    view.SetNode(index);
    QCOMPARE(view.DrawnSamples(), 20);
    QCOMPARE(view.LatencyPlot()->graph(1)->dataCount(), 20);

    // Pause freezes the picture; samples are still recorded and drawn on resume.
    view.SetPaused(true);
    node.Feed(&state, last + 2000);
    QCOMPARE(view.DrawnSamples(), 20);
    QCOMPARE(view.Model()->series(index).size(), size_t{21});
    view.SetPaused(false);
    QCOMPARE(view.DrawnSamples(), 21);

    // The wheel zooms the time axis of all three charts and stops the scrolling.
    QCustomPlot* rates = view.RatesPlot();
    rates->replot();
    const QPoint middle = rates->axisRect()->rect().center();
    QWheelEvent wheel(middle, rates->mapToGlobal(middle), QPoint(), QPoint(0, 240), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(rates, &wheel);
    QVERIFY(!view.Following());
    const QCPRange zoomed = rates->xAxis->range();
    QVERIFY(zoomed.size() < 60.0);
    QCOMPARE(view.LatencyPlot()->xAxis->range(), zoomed);
    node.Feed(&state, last + 4000);
    QCOMPARE(rates->xAxis->range(), zoomed);  // Not following: stays where the user looks.

    // CSV of what is visible, PNG of the charts.
    QTemporaryDir dir;
    QString error;
    QVERIFY2(view.ExportCsv(dir.filePath("zoomed.csv"), &error), qPrintable(error));
    QFile zoomed_csv(dir.filePath("zoomed.csv"));
    QVERIFY(zoomed_csv.open(QIODevice::ReadOnly));
    const int zoomed_lines = zoomed_csv.readAll().trimmed().split('\n').size();
    QCOMPARE(zoomed_lines - 1,
             int(view.Model()->Samples(index, view.VisibleFromMs(), view.VisibleToMs()).size()));
    QVERIFY(zoomed_lines - 1 < 22);
    view.Follow();
    QVERIFY(view.Following());
    QCOMPARE(view.VisibleToMs(), last + 4000);
    QVERIFY2(view.ExportCsv(dir.filePath("all.csv"), &error), qPrintable(error));
    QFile all_csv(dir.filePath("all.csv"));
    QVERIFY(all_csv.open(QIODevice::ReadOnly));
    QCOMPARE(all_csv.readAll().trimmed().split('\n').size(), 1 + 22);
    QVERIFY2(view.ExportPng(dir.filePath("charts.png"), &error), qPrintable(error));
    QCOMPARE(QImage(dir.filePath("charts.png")).size(), view.size() * view.devicePixelRatio());
    QVERIFY(!view.ExportPng(dir.filePath("no/such/dir/charts.png"), &error));
    SaveScreenshot(&view, "throughput_view.png");

    // Hidden, the view draws nothing and asks for no replot; shown again, it catches up.
    view.hide();
    const int replots = view.ReplotRequests();
    QCOMPARE(view.DrawnSamples(), 22);
    node.Feed(&state, last + 6000);
    QCOMPARE(view.DrawnSamples(), 22);
    QCOMPARE(view.ReplotRequests(), replots);
    view.show();
    QCOMPARE(view.DrawnSamples(), 23);
  }

  void throughputViewSwitchesToTheWholeCluster() {
    ClusterState state;
    state.AddNode("127.0.0.1:7000");
    state.AddNode("127.0.0.1:7001");
    ThroughputView view(&state);
    view.SetNode(0);
    QCOMPARE(view.Node(), 0);
    view.SetWholeCluster(true);
    QCOMPARE(view.Node(), int(ThroughputModel::kCluster));
    view.SetNode(1);  // Selecting a node elsewhere keeps the cluster on screen...
    QCOMPARE(view.Node(), int(ThroughputModel::kCluster));
    view.SetWholeCluster(false);  // ...and unticking shows the node chosen meanwhile.
    QCOMPARE(view.Node(), 1);
    QVERIFY(!view.WholeCluster());
  }

  void throughputViewMarksTheCommandsOfTheShownNodes() {
    ClusterState state;
    state.AddNode("127.0.0.1:7000", "backend-1");
    state.AddNode("127.0.0.1:7001", "backend-2");
    ThroughputView view(&state);
    QVERIFY(ShowOneMinuteOfOneNode(view));
    const qint64 t0 = 1700000000000;
    for (int f = 0; f < 50; ++f) {
      // Each node repeats its recent commands in every snapshot after running them.
      std::vector<std::pair<qint64, std::string>> ran0, ran1;
      if (f >= 10) ran0.push_back({t0 + 1000, "drain"});
      if (f >= 20) ran0.push_back({t0 + 2000, "undrain"});
      if (f >= 30) ran1.push_back({t0 + 3050, "compact"});
      state.ApplyFrame({{0, Serving(100, 50, 200, ran0), {}}, {1, Serving(80, 50, 200, ran1), {}}},
                       t0 + f * 100);
    }
    view.SetNode(0);
    for (QCustomPlot* plot : {view.RatesPlot(), view.ErrorsPlot(), view.LatencyPlot()}) {
      const QList<QPair<double, QString>> expected = {{(t0 + 1000) / 1000.0, "drain"},
                                                      {(t0 + 2000) / 1000.0, "undrain"}};
      QCOMPARE(EventMarks(plot), expected);
    }
    view.SetWholeCluster(true);
    for (QCustomPlot* plot : {view.RatesPlot(), view.ErrorsPlot(), view.LatencyPlot()}) {
      const QList<QPair<double, QString>> expected = {{(t0 + 1000) / 1000.0, "drain backend-1"},
                                                      {(t0 + 2000) / 1000.0, "undrain backend-1"},
                                                      {(t0 + 3050) / 1000.0, "compact backend-2"}};
      QCOMPARE(EventMarks(plot), expected);
    }
    QCOMPARE(view.Model()->Events(ThroughputModel::kCluster, t0, t0 + 5000).size(), 3);
    state.Clear();
    QVERIFY(EventMarks(view.RatesPlot()).isEmpty());
  }

  // A burst of commands across many nodes (a rolling drain, a lab brought down) keeps its first
  // labels and says the rest on one more row, so the chart still shows; every mark keeps a line,
  // drawn once per pixel column. A burst that fits the rows is labelled mark by mark.
  void aBurstOfMarksFoldsPastTheRowsThatHoldIt() {
    for (const int nodes : {PlotEventMarks::kMaxRows, 40}) {
      ClusterState state;
      for (int n = 0; n < nodes; ++n) {
        state.AddNode(QStringLiteral("127.0.0.1:%1").arg(7000 + n),
                      QStringLiteral("backend-%1").arg(n + 1));
      }
      ThroughputView view(&state);
      QVERIFY(ShowOneMinuteOfOneNode(view));
      view.SetWholeCluster(true);
      const qint64 t0 = 1700000000000;
      for (int f = 0; f < 30; ++f) {
        std::vector<ClusterState::Update> frame;
        for (int n = 0; n < nodes; ++n) {
          // Node n drained 1 ms after node n - 1: a fraction of a pixel at this scale.
          std::vector<std::pair<qint64, std::string>> ran;
          if (f >= 10) ran.push_back({t0 + 1000 + n, "drain"});
          frame.push_back({n, Serving(100, 50, 200, ran), {}});
        }
        state.ApplyFrame(frame, t0 + f * 100);
      }
      for (QCustomPlot* plot : {view.RatesPlot(), view.ErrorsPlot(), view.LatencyPlot()}) {
        QStringList labels;
        QSet<double> line_keys;
        int lines = 0;
        for (int i = 0; i < plot->itemCount(); ++i) {
          if (auto* text = qobject_cast<QCPItemText*>(plot->item(i))) labels << text->text();
          if (auto* line = qobject_cast<QCPItemStraightLine*>(plot->item(i))) {
            ++lines;
            line_keys.insert(line->point1->key());
          }
        }
        QStringList expected;
        const int labelled =
            nodes <= PlotEventMarks::kMaxRows ? nodes : PlotEventMarks::kMaxRows - 1;
        for (int n = 0; n < labelled; ++n)
          expected << QStringLiteral("drain backend-%1").arg(n + 1);
        if (labelled < nodes) {
          expected << QStringLiteral("+%1 more: %1 drain").arg(nodes - labelled);
        }
        QCOMPARE(labels, expected);
        // Each line at one of the marks' times; fewer lines than marks once they share pixels.
        for (const double key : line_keys) {
          const double offset_ms = key * 1000.0 - (t0 + 1000);
          QVERIFY2(offset_ms > -0.5 && offset_ms < nodes, qPrintable(QString::number(key)));
        }
        QVERIFY(lines >= 1);
        if (nodes == 40) QVERIFY2(lines < nodes, qPrintable(QString::number(lines)));
      }
      for (const QSize size : {QSize(1024, 700), QSize(1920, 1200)}) {
        view.resize(size);
        SaveScreenshot(&view, QStringLiteral("throughput_marks_%1_%2x%3.png")
                                  .arg(nodes)
                                  .arg(size.width())
                                  .arg(size.height()));
      }
    }
  }

  void throughputViewLeavesLatencyGapsWithoutTraffic() {
    ClusterState state;
    state.AddNode("127.0.0.1:7000", "backend-1");
    ThroughputView view(&state);
    view.resize(800, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.SetNode(0);
    const qint64 t0 = 1700000000000;
    // Serving, then drained (no requests; the node still reports its methods' last latency),
    // then serving again.
    for (int f = 0; f < 30; ++f) {
      const bool drained = f >= 10 && f < 20;
      state.ApplyFrame({{0, Serving(drained ? 0 : 100, 500, 2000), {}}}, t0 + f * 100);
    }
    QCPGraph* p50 = view.LatencyPlot()->graph(0);
    QCPGraph* p99 = view.LatencyPlot()->graph(1);
    QCOMPARE(p99->data()->size(), 30);
    for (int f = 0; f < 30; ++f) {
      const bool drained = f >= 10 && f < 20;
      QCOMPARE(std::isnan(p50->data()->at(f)->value), drained);
      QCOMPARE(std::isnan(p99->data()->at(f)->value), drained);
      if (!drained) QCOMPARE(p99->data()->at(f)->value, 2.0);
    }
    QCOMPARE(view.RatesPlot()->graph(0)->data()->at(15)->value, 0.0);  // Rates stay drawn.
  }

  void throughputViewLegendReadsCurrentMeanAndMax() {
    ClusterState state;
    state.AddNode("127.0.0.1:7000", "backend-1");
    ThroughputView view(&state);
    view.resize(900, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.SetNode(0);
    const qint64 t0 = 1700000000000;
    // 100, 200, 300, 400 requests/s, then none; p99 1.5, 2.5, 3.5, 4.5 ms while serving.
    for (int f = 0; f < 5; ++f) {
      const double rate = f < 4 ? 100.0 * (f + 1) : 0;
      state.ApplyFrame({{0, Serving(rate, 250, 1500 + 1000 * f), {}}}, t0 + f * 1000);
    }
    QCOMPARE(view.RatesPlot()->graph(0)->name(), QString("requests/s   now 0  mean 200  max 400"));
    QCOMPARE(view.ErrorsPlot()->graph(0)->name(), QString("errors/s   now 0  mean 0  max 0"));
    // Latency: the mean and max of the samples with traffic; "now" has none.
    QCOMPARE(view.LatencyPlot()->graph(1)->name(),
             QString("p99   now \u2013  mean 3.00 ms  max 4.50 ms"));
    // Below a millisecond in µs, not "0.25" (ms).
    QCOMPARE(view.LatencyPlot()->graph(0)->name(),
             QString("p50   now \u2013  mean 250 \u00b5s  max 250 \u00b5s"));
    SaveScreenshot(&view, "throughput_legend.png");
  }

  // Over 16 minutes at 2 Hz the model downsamples what is older than 3 minutes; the plot drawn
  // frame by frame holds the same points (not 16 minutes at full resolution), the old spike
  // included.
  void throughputPlotsHoldWhatTheModelKeeps() {
    ClusterState state;
    const int node = state.AddNode("127.0.0.1:7000");
    ThroughputView view(&state);
    view.resize(800, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.SetNode(node);
    QVERIFY(view.SetWindowMinutes(15));
    const qint64 t0 = 1700000000000;
    const int frames = 16 * 60 * 2;
    const int spike = 4 * 60 * 2 + 1;
    for (int f = 0; f < frames; ++f) {
      auto t = std::make_shared<admin::Telemetry>();
      t->set_state(admin::NODE_SERVING);
      t->mutable_throughput()->set_requests_per_s(f == spike ? 9000 : 100 + f % 3);
      state.ApplyFrame({{node, t, {}}}, t0 + f * 500);
    }
    const ThroughputModel::Series& series = view.Model()->series(node);
    QVERIFY(series.size() < size_t(frames) * 9 / 10);
    QCOMPARE(view.DrawnSamples(), int(series.size()));
    const QCPGraphDataContainer& drawn = *view.RatesPlot()->graph(0)->data();
    double highest = 0;
    for (size_t i = 0; i < series.size(); ++i) {
      QCOMPARE(drawn.at(int(i))->key, double(series[i].t_ms) / 1000.0);
      QCOMPARE(drawn.at(int(i))->value, series[i].requests_per_s);
      highest = std::max(highest, drawn.at(int(i))->value);
    }
    QCOMPARE(highest, 9000.0);
    // Its storage stays near its points, not several times them (QCustomPlot's own squeeze
    // leaves up to 1.5x spare in front and 5x behind).
    for (QCustomPlot* plot : {view.RatesPlot(), view.LatencyPlot()}) {
      const QCPGraphDataContainer& data = *plot->graph(0)->data();
      QVERIFY2(Storage(data).capacity() <= qsizetype(data.size()) * 9 / 4 + 64,
               qPrintable(QString("%1 for %2").arg(Storage(data).capacity()).arg(data.size())));
    }
  }

  // 25 minutes at 2 Hz drawn sample by sample: a graph's storage stays near the points it
  // shows, where QCustomPlot's own squeeze let it reach several times them.
  void throughputGraphsStorageStaysNearTheirPoints() {
    QCustomPlot plots[3];
    QCustomPlot* const pointers[3] = {&plots[0], &plots[1], &plots[2]};
    ThroughputGraphs graphs(pointers, ThroughputGraphs::Style::kAlone, QString(), QColor());
    ThroughputSeries series(ThroughputModel::kMaxWindowMs);
    const qint64 t0 = 1700000000000;
    qsizetype worst = 0;
    for (int f = 0; f < 25 * 60 * 2; ++f) {
      series.push_back({t0 + qint64(f) * 500, 100.0 + f % 7, 0, 0, 200, 900});
      graphs.Append(series);
      const QCPGraphDataContainer& data = *graphs.requests()->data();
      if (f > 15 * 60 * 2) {
        worst = std::max(worst, Storage(data).capacity() * 100 / std::max(1, data.size()));
      }
    }
    QCOMPARE(graphs.DrawnSamples(), int(series.size()));
    QVERIFY2(worst <= 225 + 5, qPrintable(QString("%1% of the points").arg(worst)));
  }

  void throughputViewAtTenHertzAppendsOnlyNewSamples() {
    // Generated telemetry for 20 nodes at 10 Hz for two minutes of cluster time.
    ClusterState state;
    for (int n = 0; n < 20; ++n) state.AddNode(QString("127.0.0.1:%1").arg(7000 + n));
    ThroughputView view(&state);
    view.resize(800, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.SetWindowMinutes(1));
    const qint64 t0 = 1700000000000;
    const int frames = 1200;
    for (int f = 0; f < frames; ++f) {
      std::vector<ClusterState::Update> updates;
      for (int n = 0; n < 20; ++n) {
        auto t = std::make_shared<admin::Telemetry>();
        t->set_state(admin::NODE_SERVING);
        t->mutable_throughput()->set_requests_per_s(100 + n + (f % 50));
        updates.push_back({n, t, {}});
      }
      state.ApplyFrame(updates, t0 + f * 100);
    }
    QCOMPARE(view.DrawnSamples(), frames);  // Within 15 minutes: everything kept.
    QCOMPARE(view.Model()->series(ThroughputModel::kCluster).back().requests_per_s,
             20 * 100.0 + 190 + (frames - 1) % 50 * 20);
    QCOMPARE(view.VisibleToMs(), t0 + (frames - 1) * 100);
    // One queued replot request per chart per frame at most; Qt coalesces them into one paint.
    QVERIFY(view.ReplotRequests() <= 3 * (frames + 4));
    // Twenty nodes: each has its own line, appended to frame by frame.
    QCOMPARE(view.Shown(), ThroughputView::Show::kEachNode);
    QCOMPARE(view.RatesPlot()->graphCount(), 20);
    for (int n = 0; n < 20; ++n) QCOMPARE(view.RatesPlot()->graph(n)->dataCount(), frames);
    // Switching to one node redraws from its own series.
    view.SetShow(ThroughputView::Show::kOneNode);
    view.SetNode(7);
    QCOMPARE(view.DrawnSamples(), frames);
    QCOMPARE(view.RatesPlot()->graph(0)->data()->at(frames - 1)->value,
             100.0 + 7 + (frames - 1) % 50);
    state.Clear();
    QCOMPARE(view.DrawnSamples(), 0);
  }
};

RAILYARD_QTEST_MAIN(StorageViewsTest)
#include "tst_storage_views.moc"
