// SPDX-License-Identifier: Apache-2.0
// The Bloom view's reading aids (issue 14, item 5; bug B16): one colour scale per session that
// only grows and is shared by all nodes, empty and all-zero states in words, the eviction cut-off
// on the colour bar and in words, a legend that covers no data, and why a page is not resident.
// Generated telemetry with known figures.
#include <QLabel>
#include <QTest>

#include "tests/support/qtest_main.h"
#include "tests/ui/screenshot.h"
#include "tests/ui/ui_test_support.h"
#include "ui/views/bloom_view.h"
#include "ui/views/qcustomplot_include.h"

using railyard::ui::testing::ApplySnapshot;
using namespace railyard;
using namespace railyard::ui;

using railyard::ui::testing::MakeTelemetry;
using railyard::ui::testing::SaveScreenshot;
namespace {

using TelemetryPtr = std::shared_ptr<admin::Telemetry>;

void AddIndex(admin::Telemetry* t, uint64_t id, uint64_t pages, double p_no) {
  admin::IndexInfo* i = t->mutable_storage()->add_indexes();
  i->set_id(id);
  i->set_entries(1000);
  i->set_bloom_pages(pages);
  i->set_p_no(p_no);
}

void AddPage(admin::Telemetry* t, uint64_t index, uint32_t page, double requests, double p_no,
             bool resident) {
  admin::BloomPage* p = t->mutable_storage()->add_bloom_pages();
  p->set_index(index);
  p->set_page(page);
  p->set_recent_requests(requests);
  p->set_p_no(p_no);
  p->set_usefulness(requests * p_no);
  p->set_resident(resident);
}

// One index of four pages with usefulness `top` x {0.25, 0.5, 0.75, 1}; the top two resident.
TelemetryPtr FourPages(const std::string& name, int64_t ms, double top) {
  TelemetryPtr t = MakeTelemetry(name, ms);
  AddIndex(t.get(), 7, 4, 0.5);
  for (uint32_t page = 0; page < 4; ++page) {
    AddPage(t.get(), 7, page, 2 * top * (page + 1) / 4.0, 0.5, page >= 2);
  }
  t->mutable_storage()->set_bloom_budget_bytes(1024);
  t->mutable_storage()->set_bloom_resident_bytes(1024);
  return t;
}

}  // namespace

class BloomViewTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

  // The same colour means the same usefulness across frames and nodes: the scale's top is the
  // session's largest usefulness, whichever node had it, and never shrinks.
  void colourScaleOnlyGrowsAndIsSharedByNodes() {
    ClusterState state;
    const int a = state.AddNode("127.0.0.1:1", "a");
    const int b = state.AddNode("127.0.0.1:2", "b");
    BloomView view(&state);
    view.resize(900, 520);
    view.SetNode(a);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    ApplySnapshot(state, a, FourPages("a", 1000, 12));
    ApplySnapshot(state, b, FourPages("b", 1000, 40));  // Not shown, yet it widens the scale.
    QCOMPARE(view.ColorMap()->dataRange().upper, 40.0);
    ApplySnapshot(state, a, FourPages("a", 2000, 6));  // Quieter: the scale keeps its top.
    QCOMPARE(view.ColorMap()->dataRange().upper, 40.0);
    const QRgb six_on_a = view.ColorMap()->gradient().color(6, view.ColorMap()->dataRange());
    view.SetNode(b);
    QCOMPARE(view.ColorMap()->dataRange().upper, 40.0);
    QCOMPARE(view.ColorMap()->gradient().color(6, view.ColorMap()->dataRange()), six_on_a);
    QVERIFY(view.StateText().contains("0 to 40.00"));
    // A new session (the nodes reset) starts a new scale.
    state.Clear();
    const int c = state.AddNode("127.0.0.1:3", "c");
    view.SetNode(c);
    ApplySnapshot(state, c, FourPages("c", 3000, 8));
    QCOMPARE(view.ColorMap()->dataRange().upper, 8.0);
  }

  // B16: no pages, or pages that are all useless, are said in words, not drawn as 0..1e-9.
  void emptyAndAllZeroStatesSaySo() {
    ClusterState state;
    const int a = state.AddNode("127.0.0.1:1", "a");
    BloomView view(&state);
    view.resize(900, 520);
    view.SetNode(a);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    ApplySnapshot(state, a, MakeTelemetry("a", 1000));
    QVERIFY(view.StateText().startsWith("No Bloom pages yet"));
    QVERIFY(!view.ColorScale()->visible());
    QVERIFY(view.ColorMap()->dataRange().upper >= 1.0);
    QVERIFY(!view.CutoffLine()->visible());
    bool shown = false;
    for (QLabel* label : view.findChildren<QLabel*>()) {
      shown = shown || (label->isVisible() && label->text() == view.StateText());
    }
    QVERIFY(shown);
    SaveScreenshot(&view, "bloom_view_empty.png");

    TelemetryPtr t = MakeTelemetry("a", 2000);
    AddIndex(t.get(), 7, 3, 0.5);
    for (uint32_t page = 0; page < 3; ++page) AddPage(t.get(), 7, page, 0, 0.5, false);
    ApplySnapshot(state, a, t);
    QVERIFY(view.StateText().startsWith("Every page's usefulness is 0"));
    QVERIFY(!view.ColorScale()->visible());
    QVERIFY(view.ColorMap()->dataRange().upper >= 1.0);
    SaveScreenshot(&view, "bloom_view_all_zero.png");
  }

  // The cut-off (the least useful resident page's usefulness) is a line on the colour bar and a
  // sentence; the legend sits outside the grid.
  void cutoffIsDrawnAndStatedAndTheLegendCoversNoData() {
    ClusterState state;
    const int a = state.AddNode("127.0.0.1:1", "a");
    BloomView view(&state);
    view.resize(900, 520);
    view.SetNode(a);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    ApplySnapshot(state, a, FourPages("a", 1000, 12));  // Resident: 9 and 12.
    QCOMPARE(view.Model()->EvictionCutoff(), 9.0);
    QVERIFY(view.CutoffLine()->visible());
    QCOMPARE(view.CutoffLine()->start->coords().y(), 9.0);
    QCOMPARE(view.CutoffLine()->start->valueAxis(), view.ColorScale()->axis());
    QVERIFY(view.StateText().startsWith("Cut-off: pages less useful than 9.00 are not kept"));
    view.Plot()->replot();
    const QRect grid = view.Plot()->axisRect()->rect();
    QVERIFY(view.Plot()->legend->visible());
    QVERIFY(!view.Plot()->legend->outerRect().intersects(grid));
    // The line crosses the colour bar where 9 sits on its axis.
    const QPointF start = view.CutoffLine()->start->pixelPosition();
    QCOMPARE(int(start.y()), int(view.ColorScale()->axis()->coordToPixel(9.0)));
    SaveScreenshot(&view, "bloom_view_cutoff.png");
  }

  // Each reason a page is out of memory, and P(no) in words.
  void tooltipSaysWhyAPageIsNotResident() {
    ClusterState state;
    const int a = state.AddNode("127.0.0.1:1", "a");
    BloomView view(&state);
    view.resize(900, 520);
    view.SetNode(a);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    TelemetryPtr t = MakeTelemetry("a", 1000);
    AddIndex(t.get(), 7, 5, 0.5);
    AddIndex(t.get(), 3, 1, 0.0);
    AddPage(t.get(), 7, 0, 0, 0.5, false);   // Never measured.
    AddPage(t.get(), 7, 1, 4, 0.5, false);   // Usefulness 2: below the cut-off of 5.
    AddPage(t.get(), 7, 2, 10, 0.5, true);   // 5: resident, the cut-off.
    AddPage(t.get(), 7, 3, 20, 0.5, true);   // 10: resident.
    AddPage(t.get(), 7, 4, 12, 0.5, false);  // 6: above the cut-off, no room left.
    AddPage(t.get(), 3, 0, 50, 0.0, false);  // P(no) 0.
    t->mutable_storage()->set_bloom_budget_bytes(1024);
    t->mutable_storage()->set_bloom_resident_bytes(1024);
    ApplySnapshot(state, a, t);
    const BloomModel& model = *view.Model();
    QVERIFY(model.DescribeCell(0, 0).contains("why: never measured"));
    QVERIFY(
        model.DescribeCell(0, 1).contains("why: below the cut-off: usefulness 2.00 is under 5.00"));
    QVERIFY(model.NotResidentReason(0, 2).isEmpty());
    QVERIFY(model.DescribeCell(0, 2).contains("resident: kept in memory"));
    QVERIFY(model.DescribeCell(0, 4).contains("why: budget full"));
    QVERIFY(model.DescribeCell(1, 0).contains("why: P(no) is 0"));
    QVERIFY(model.DescribeCell(0, 3).contains(
        "P(no): 0.500 (the chance a lookup that reaches this page learns the key is not in this "
        "index, and skips reading it)"));
    view.Plot()->replot();
    QCOMPARE(view.ToolTipAt(view.CellCenter(0, 1)), model.DescribeCell(0, 1));

    // With room in the budget, a useful page that is out waits for the pager's next ranking.
    TelemetryPtr roomy = std::make_shared<admin::Telemetry>(*t);
    roomy->set_unix_ms(2000);
    roomy->mutable_storage()->set_bloom_budget_bytes(8192);
    ApplySnapshot(state, a, roomy);
    QVERIFY(model.DescribeCell(0, 4).contains("why: not ranked yet"));
  }
};

RAILYARD_QTEST_MAIN(BloomViewTest)
#include "tst_bloom_view.moc"
