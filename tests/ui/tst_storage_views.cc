// The compaction, Bloom and throughput views, built offscreen against telemetry from a real node
// on loopback; each writes a screenshot for people to look at.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QImage>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>

#include "tests/ui/storage_test_node.h"
#include "ui/views/bloom_view.h"
#include "ui/views/compaction_view.h"
#include "ui/views/index_stack_widget.h"
#include "ui/views/qcustomplot_include.h"
#include "ui/views/throughput_view.h"

using namespace railyard;
using namespace railyard::ui;
using railyard::ui::testing::StorageTestNode;
using railyard::ui::testing::WaitFor;

namespace {

// Writes the widget's picture under the build folder and checks it is a real image.
void Screenshot(QWidget* widget, const QString& name) {
  QDir().mkpath(SCREENSHOT_DIR);
  const QString path = QDir(SCREENSHOT_DIR).filePath(name);
  QCoreApplication::processEvents();  // Let queued replots run, as they would on screen.
  QVERIFY(widget->grab().save(path));
  const QImage image(path);
  QVERIFY(!image.isNull());
  QCOMPARE(image.size(), widget->size() * widget->devicePixelRatio());
  qInfo("screenshot: %s", qPrintable(path));
}

// 3000 + 250 distinct ids with a 500-entry in-memory index, flushed: the seed's rule leaves three
// indexes (250, 1000 and 2000 entries); then 200 more that stay in memory.
bool ThreeIndexesAndAPartlyFullMemtable(StorageTestNode& node) {
  return node.Put(1, 3000) && node.Put(10001, 250) && node.node().store().Flush().ok() &&
         node.Put(20001, 200);
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
    QAbstractItemModel* timeline = view.timeline()->model();
    QVERIFY(timeline == view.model()->history());
    QAbstractItemModelTester tester(timeline,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.resize(900, 640);
    view.setNode(index);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    const CompactionModel& model = *view.model();
    QCOMPARE(model.indexes().size(), 3);
    QCOMPARE(model.indexes()[0].entries, quint64{250});
    QCOMPARE(model.indexes()[2].entries, quint64{2000});
    QCOMPARE(view.findChild<QProgressBar*>()->value(), 200);
    QCOMPARE(view.findChild<QProgressBar*>()->maximum(), 500);
    QCOMPARE(timeline->rowCount(), int(model.compactions().size()));
    QVERIFY(timeline->rowCount() >= 7);  // Seven flushes, some merging.
    QCOMPARE(timeline->columnCount(), 6);
    QCOMPARE(timeline->headerData(1, Qt::Horizontal).toString(), QString("Compaction set"));
    QVERIFY(timeline->index(0, 1).data().toString().startsWith("mem"));
    QVERIFY(view.writeAmplificationText().contains(
        QString::number(model.writeAmplification(), 'f', 2)));

    // Bars are as wide as their share of the largest index.
    IndexStackWidget* stack = view.indexStack();
    QVERIFY(stack->barRect(2).width() > stack->barRect(1).width());
    QVERIFY(stack->barRect(1).width() > stack->barRect(0).width());

    QVERIFY(stack->describeRow(2).contains(
        QString("index #%1\n2,000 entries").arg(model.indexes()[2].id)));
    QVERIFY(stack->describeRow(3).isEmpty());

    // Select the two newest by click and shift-click; ask to compact them.
    QVERIFY(!view.compactSelectedButton()->isEnabled());
    QTest::mouseClick(stack, Qt::LeftButton, {}, stack->barRect(0).center());
    QCOMPARE(stack->selectedIds(), (QVector<quint64>{model.indexes()[0].id}));
    QVERIFY(!view.compactSelectedButton()->isEnabled());  // One index is not a set.
    QTest::mouseClick(stack, Qt::LeftButton, Qt::ShiftModifier, stack->barRect(1).center());
    const QVector<quint64> pair = {model.indexes()[0].id, model.indexes()[1].id};
    QCOMPARE(stack->selectedIds(), pair);
    QVERIFY(view.compactSelectedButton()->isEnabled());
    QSignalSpy requested(&view, &CompactionView::compactRequested);
    QTest::mouseClick(view.compactSelectedButton(), Qt::LeftButton);
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested[0][0].toInt(), index);
    QCOMPARE(requested[0][1].value<QVector<quint64>>(), pair);
    Screenshot(&view, "compaction_view.png");
    QTest::mouseClick(view.compactAllButton(), Qt::LeftButton);
    QCOMPARE(requested.count(), 2);
    QVERIFY(requested[1][1].value<QVector<quint64>>().isEmpty());

    // Read-only: everything still shown, nothing can be asked for.
    view.setActionsEnabled(false);
    QVERIFY(!view.compactSelectedButton()->isEnabled());
    QVERIFY(!view.compactAllButton()->isEnabled());
    view.requestCompactAll();
    QCOMPARE(requested.count(), 2);
    QCOMPARE(timeline->rowCount(), int(model.compactions().size()));

    // The node compacts everything: the next frame shows one index, and the selection is gone.
    QVERIFY(node.node().store().CompactAll().ok());
    QVERIFY(node.Feed(&state) == index);
    QCOMPARE(model.indexes().size(), 1);
    QVERIFY(stack->selectedIds().isEmpty());
    QCOMPARE(timeline->index(0, 5).data().toString(), QString("manual"));
    QCOMPARE(timeline->rowCount(), int(model.compactions().size()));
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
      for (const admin::BloomPage& p : state.node(index).telemetry->storage().bloom_pages()) {
        if (p.resident() && p.usefulness() > 0) ++useful;
      }
      return useful > 3;
    }));

    BloomView view(&state);
    view.resize(900, 520);
    view.setNode(index);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const BloomModel& model = *view.model();
    QCOMPARE(model.rowCount(), 3);
    QCPColorMapData* data = view.colorMap()->data();
    QCOMPARE(data->keySize(), model.columnCount());
    QCOMPARE(data->valueSize(), model.rowCount());
    int marked = 0;
    for (int r = 0; r < model.rowCount(); ++r) {
      for (int c = 0; c < model.columnCount(); ++c) {
        const BloomCell* cell = model.cell(r, c);
        if (cell) {
          QCOMPARE(data->cell(c, r), cell->usefulness);
          marked += cell->resident ? 1 : 0;
        } else {
          QVERIFY(std::isnan(data->cell(c, r)));  // Drawn transparent.
        }
      }
    }
    QCOMPARE(view.residentMarks()->dataCount(), marked);
    QCOMPARE(marked, model.residentPages());
    QVERIFY(view.budgetText().contains(
        QString("%1 of %2 pages resident").arg(model.residentPages()).arg(model.totalPages())));

    // Hovering a cell shows its figures.
    view.plot()->replot();
    const QPoint centre = view.cellCenter(1, 3);
    int row = -1, page = -1;
    QVERIFY(view.cellAt(centre, &row, &page));
    QCOMPARE(row, 1);
    QCOMPARE(page, 3);
    QCOMPARE(view.toolTipAt(centre), model.describeCell(1, 3));
    QVERIFY(view.toolTipAt(centre).contains(QString("index #%1, page 3").arg(model.row(1).index)));
    QHelpEvent help(QEvent::ToolTip, centre, view.plot()->mapToGlobal(centre));
    QApplication::sendEvent(view.plot(), &help);
    QCOMPARE(QToolTip::text(), model.describeCell(1, 3));
    QVERIFY(view.toolTipAt(QPoint(1, 1)).isEmpty());  // Outside the grid.
    Screenshot(&view, "bloom_view.png");
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
    const int node = state.addNode("127.0.0.1:7000", "tiny");
    state.applyFrame({{node, telemetry}}, 1000);
    BloomView view(&state);
    view.resize(700, 400);
    view.setNode(node);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.model()->columnCount(), 1);
    view.plot()->replot();
    const QImage image = view.plot()->toPixmap().toImage();
    for (int row = 0; row < 2; ++row) {
      // Off the resident mark's outline, inside the cell: the gradient's colour for its value.
      const QPoint inside = view.cellCenter(row, 0) + QPoint(0, 10);
      const QColor want = view.colorMap()->gradient().color(view.model()->cell(row, 0)->usefulness,
                                                            view.colorMap()->dataRange());
      const QColor got = image.pixelColor(inside);
      const int distance = std::abs(got.red() - want.red()) + std::abs(got.green() - want.green()) +
                           std::abs(got.blue() - want.blue());
      QVERIFY2(
          distance < 24,
          qPrintable(QString("row %1: painted %2, want %3").arg(row).arg(got.name(), want.name())));
      QCOMPARE(view.toolTipAt(view.cellCenter(row, 0)), view.model()->describeCell(row, 0));
    }
    Screenshot(&view, "bloom_view_single_page.png");
  }

  // A node added by address is named by its first telemetry; the chart's title follows.
  void throughputViewTitleFollowsTheNodesName() {
    ClusterState state;
    const int node = state.addNode("127.0.0.1:7000");
    ThroughputView view(&state);
    view.resize(700, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setNode(node);
    QCOMPARE(view.title(), QString("127.0.0.1:7000"));
    auto telemetry = std::make_shared<admin::Telemetry>();
    telemetry->set_node("named-later");
    telemetry->mutable_throughput()->set_requests_per_s(10);
    state.applyFrame({{node, telemetry}}, 1000);
    QCOMPARE(view.title(), QString("named-later"));
  }

  void throughputViewShowsARealNode() {
    StorageTestNode node;
    QVERIFY2(node.Start(), qPrintable(node.error()));
    ClusterState state;
    ThroughputView view(&state);
    view.resize(900, 640);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.setWindowMinutes(1));
    QVERIFY(!view.setWindowMinutes(3));

    // Twenty frames two seconds apart on the cluster clock, each after real traffic.
    const qint64 t0 = QDateTime::currentMSecsSinceEpoch();
    int index = -1;
    for (int i = 0; i < 20; ++i) {
      QVERIFY(node.Put(uint64_t(i) * 100 + 1, 40 + 5 * i));
      node.Get(uint64_t(i) * 100 + 1, 80);
      index = node.Feed(&state, t0 + i * 2000);
    }
    QCOMPARE(view.drawnSamples(), 20);  // The cluster: one node.
    const qint64 last = t0 + 19 * 2000;
    QCOMPARE(view.visibleToMs(), last);
    QCOMPARE(view.visibleFromMs(), last - 60000);
    QVERIFY(view.ratesPlot()->yAxis->range().upper > 0);
    view.setNode(index);
    QCOMPARE(view.drawnSamples(), 20);
    QCOMPARE(view.latencyPlot()->graph(1)->dataCount(), 20);

    // Pause freezes the picture; samples are still recorded and drawn on resume.
    view.setPaused(true);
    node.Feed(&state, last + 2000);
    QCOMPARE(view.drawnSamples(), 20);
    QCOMPARE(view.model()->series(index).size(), size_t{21});
    view.setPaused(false);
    QCOMPARE(view.drawnSamples(), 21);

    // The wheel zooms the time axis of all three charts and stops the scrolling.
    QCustomPlot* rates = view.ratesPlot();
    rates->replot();
    const QPoint middle = rates->axisRect()->rect().center();
    QWheelEvent wheel(middle, rates->mapToGlobal(middle), QPoint(), QPoint(0, 240), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(rates, &wheel);
    QVERIFY(!view.following());
    const QCPRange zoomed = rates->xAxis->range();
    QVERIFY(zoomed.size() < 60.0);
    QCOMPARE(view.latencyPlot()->xAxis->range(), zoomed);
    node.Feed(&state, last + 4000);
    QCOMPARE(rates->xAxis->range(), zoomed);  // Not following: stays where the user looks.

    // CSV of what is visible, PNG of the charts.
    QTemporaryDir dir;
    QString error;
    QVERIFY2(view.exportCsv(dir.filePath("zoomed.csv"), &error), qPrintable(error));
    QFile zoomed_csv(dir.filePath("zoomed.csv"));
    QVERIFY(zoomed_csv.open(QIODevice::ReadOnly));
    const int zoomed_lines = zoomed_csv.readAll().trimmed().split('\n').size();
    QCOMPARE(zoomed_lines - 1,
             int(view.model()->samples(index, view.visibleFromMs(), view.visibleToMs()).size()));
    QVERIFY(zoomed_lines - 1 < 22);
    view.follow();
    QVERIFY(view.following());
    QCOMPARE(view.visibleToMs(), last + 4000);
    QVERIFY2(view.exportCsv(dir.filePath("all.csv"), &error), qPrintable(error));
    QFile all_csv(dir.filePath("all.csv"));
    QVERIFY(all_csv.open(QIODevice::ReadOnly));
    QCOMPARE(all_csv.readAll().trimmed().split('\n').size(), 1 + 22);
    QVERIFY2(view.exportPng(dir.filePath("charts.png"), &error), qPrintable(error));
    QCOMPARE(QImage(dir.filePath("charts.png")).size(), view.size() * view.devicePixelRatio());
    QVERIFY(!view.exportPng(dir.filePath("no/such/dir/charts.png"), &error));
    Screenshot(&view, "throughput_view.png");

    // Hidden, the view draws nothing and asks for no replot; shown again, it catches up.
    view.hide();
    const int replots = view.replotRequests();
    QCOMPARE(view.drawnSamples(), 22);
    node.Feed(&state, last + 6000);
    QCOMPARE(view.drawnSamples(), 22);
    QCOMPARE(view.replotRequests(), replots);
    view.show();
    QCOMPARE(view.drawnSamples(), 23);
  }

  void throughputViewSwitchesToTheWholeCluster() {
    ClusterState state;
    state.addNode("127.0.0.1:7000");
    state.addNode("127.0.0.1:7001");
    ThroughputView view(&state);
    view.setNode(0);
    QCOMPARE(view.node(), 0);
    view.setWholeCluster(true);
    QCOMPARE(view.node(), int(ThroughputModel::kCluster));
    view.setNode(1);  // Selecting a node elsewhere keeps the cluster on screen...
    QCOMPARE(view.node(), int(ThroughputModel::kCluster));
    view.setWholeCluster(false);  // ...and unticking shows the node chosen meanwhile.
    QCOMPARE(view.node(), 1);
    QVERIFY(!view.wholeCluster());
  }

  void throughputViewAtTenHertzAppendsOnlyNewSamples() {
    // Generated telemetry for 20 nodes at 10 Hz for two minutes of cluster time.
    ClusterState state;
    for (int n = 0; n < 20; ++n) state.addNode(QString("127.0.0.1:%1").arg(7000 + n));
    ThroughputView view(&state);
    view.resize(800, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.setWindowMinutes(1));
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
      state.applyFrame(updates, t0 + f * 100);
    }
    QCOMPARE(view.drawnSamples(), frames);  // Within 15 minutes: everything kept.
    QCOMPARE(view.model()->series(ThroughputModel::kCluster).back().requests_per_s,
             20 * 100.0 + 190 + (frames - 1) % 50 * 20);
    QCOMPARE(view.visibleToMs(), t0 + (frames - 1) * 100);
    // One queued replot request per chart per frame at most; Qt coalesces them into one paint.
    QVERIFY(view.replotRequests() <= 3 * (frames + 4));
    // Switching to a node redraws from its own series.
    view.setNode(7);
    QCOMPARE(view.drawnSamples(), frames);
    QCOMPARE(view.ratesPlot()->graph(0)->data()->at(frames - 1)->value,
             100.0 + 7 + (frames - 1) % 50);
    state.clear();
    QCOMPARE(view.drawnSamples(), 0);
  }
};

QTEST_MAIN(StorageViewsTest)
#include "tst_storage_views.moc"
