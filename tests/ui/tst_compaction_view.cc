// SPDX-License-Identifier: Apache-2.0
// The compaction view's reading aids (issue 14, item 5; bugs B16, B18): the heading names the
// node, rows keep their place, past sets are drawn on the stack, the next flush's set is the one
// the engine then merges (on a real node), "while watched" survives node switches, and a node
// without telemetry has an explicit empty state. Generated telemetry unless a node is involved.
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTest>

#include "tests/support/qtest_main.h"
#include "tests/ui/screenshot.h"
#include "tests/ui/storage_test_node.h"
#include "tests/ui/ui_test_support.h"
#include "ui/views/compaction_view.h"
#include "ui/views/index_stack_widget.h"

using railyard::ui::testing::ApplySnapshot;
using namespace railyard;
using namespace railyard::ui;
using railyard::ui::testing::StorageTestNode;

using railyard::ui::testing::SaveScreenshot;

namespace {

using TelemetryPtr = std::shared_ptr<admin::Telemetry>;

// A serving node's snapshot with a memtable of 1000 entries.
TelemetryPtr SnapshotWithMemtable(const std::string& name, int64_t unix_ms) {
  TelemetryPtr t = railyard::ui::testing::MakeTelemetry(name, unix_ms);
  t->mutable_storage()->set_memtable_capacity(1000);
  return t;
}

void AddIndex(admin::Telemetry* t, uint64_t id, uint64_t entries) {
  admin::IndexInfo* i = t->mutable_storage()->add_indexes();
  i->set_id(id);
  i->set_entries(entries);
  i->set_bytes(entries * 20);
  i->set_created_unix_ms(t->unix_ms() - 5000);
}

void AddCompaction(admin::Telemetry* t, std::vector<uint64_t> inputs, uint64_t output,
                   uint64_t entries, int64_t finished_ms) {
  admin::CompactionInfo* c = t->mutable_storage()->add_compactions();
  for (uint64_t input : inputs) c->add_inputs(input);
  c->set_output(output);
  c->set_entries_written(entries);
  c->set_bytes_written(entries * 20);
  c->set_duration_us(1500);
  c->set_finished_unix_ms(finished_ms);
}

void SetWrites(admin::Telemetry* t, uint64_t index_entry_writes, uint64_t document_writes) {
  t->mutable_storage()->set_index_entry_writes(index_entry_writes);
  t->mutable_storage()->set_writes(document_writes);
}

// The bar of index `id`, wherever it is drawn.
QRect BarOf(IndexStackWidget* stack, quint64 id) { return stack->BarRect(stack->RowOf(id)); }

}  // namespace

class CompactionViewTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

  void headingNamesTheNodeAndCompactAllSaysWhose() {
    ClusterState state;
    const int a = state.AddNode("127.0.0.1:1", "node1");
    TelemetryPtr t = SnapshotWithMemtable("node1", 100000);
    AddIndex(t.get(), 9, 250);
    AddIndex(t.get(), 5, 33033);
    ApplySnapshot(state, a, t);
    CompactionView view(&state);
    view.SetNode(a);
    QCOMPARE(view.Heading(), QString("node1: 2 on-disk indexes, 33,283 entries"));
    const QList<QLabel*> labels = view.findChildren<QLabel*>();
    QVERIFY(std::any_of(labels.begin(), labels.end(),
                        [](QLabel* l) { return l->text().startsWith("node1: 2 on-disk"); }));
    QCOMPARE(view.CompactAllButton()->text(), QString("Compact all of node1"));
  }

  // B16: a node that never answered shows a sentence, not a busy bar or "memory 0 / 0".
  void nodeWithoutTelemetryHasAnExplicitEmptyState() {
    ClusterState state;
    const int a = state.AddNode("127.0.0.1:1", "node1");
    CompactionView view(&state);
    view.resize(900, 500);
    view.SetNode(a);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    for (QProgressBar* bar : view.findChildren<QProgressBar*>()) {
      // A 0..0 range is Qt's animated "busy" bar.
      QVERIFY(!bar->isVisible() || bar->maximum() > bar->minimum());
    }
    QVERIFY(view.IndexStack()->EmptyText().contains("No storage telemetry from node1"));
    QCOMPARE(view.Heading(), QString("node1: no telemetry yet"));
    QVERIFY(view.NextFlushText().isEmpty());
    QVERIFY(!view.CompactAllButton()->isEnabled());
    SaveScreenshot(&view, "compaction_view_empty.png");

    // The first answer replaces the empty state.
    TelemetryPtr t = SnapshotWithMemtable("node1", 100000);
    AddIndex(t.get(), 3, 500);
    ApplySnapshot(state, a, t);
    QVERIFY(view.IndexStack()->EmptyText().isEmpty());
    QCOMPARE(view.IndexStack()->MemoryText(), QString("memory  0 / 1,000"));
  }

  // The in-memory index is drawn once, as the stack's top row: no second progress bar above it
  // saying the same (both were shown before).
  void theMemtableIsShownOnce() {
    ClusterState state;
    const int a = state.AddNode("127.0.0.1:1", "node1");
    TelemetryPtr t = SnapshotWithMemtable("node1", 100000);
    t->mutable_storage()->set_memtable_entries(300);
    AddIndex(t.get(), 8, 100);
    AddIndex(t.get(), 7, 2000);
    ApplySnapshot(state, a, t);
    CompactionView view(&state);
    view.resize(900, 500);
    view.SetNode(a);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.findChildren<QProgressBar*>().isEmpty());
    const QList<QLabel*> labels = view.findChildren<QLabel*>();
    QVERIFY(std::none_of(labels.begin(), labels.end(), [](QLabel* l) {
      return l->isVisible() && l->text().contains("In memory");
    }));
    QCOMPARE(view.IndexStack()->MemoryText(), QString("memory  300 / 1,000"));
    QVERIFY(view.IndexStack()->BarRect(-1).isValid());
    SaveScreenshot(&view, "compaction_view_memtable_once.png");
  }

  // Rows keep their place as indexes appear: the oldest stays at the bottom, and hover and
  // selection follow the index, not the row number.
  void aNewIndexDoesNotMoveTheOthers() {
    ClusterState state;
    const int a = state.AddNode("127.0.0.1:1", "node1");
    TelemetryPtr t = SnapshotWithMemtable("node1", 100000);
    AddIndex(t.get(), 9, 2000);
    AddIndex(t.get(), 5, 4000);
    ApplySnapshot(state, a, t);
    CompactionView view(&state);
    view.resize(900, 640);
    view.SetNode(a);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    IndexStackWidget* stack = view.IndexStack();
    const QRect bar9 = BarOf(stack, 9);
    const QRect bar5 = BarOf(stack, 5);
    QVERIFY(bar9.top() < bar5.top());  // Oldest at the bottom.
    QTest::mouseClick(stack, Qt::LeftButton, {}, bar9.center());
    QTest::mouseMove(stack, bar9.center());
    QCOMPARE(stack->SelectedIds(), QVector<quint64>{9});
    QCOMPARE(stack->HoveredId(), quint64{9});

    TelemetryPtr next = SnapshotWithMemtable("node1", 101000);
    AddIndex(next.get(), 12, 1000);  // A flush: a new index on top.
    AddIndex(next.get(), 9, 2000);
    AddIndex(next.get(), 5, 4000);
    ApplySnapshot(state, a, next);
    QCOMPARE(BarOf(stack, 9).top(), bar9.top());
    QCOMPARE(BarOf(stack, 5).top(), bar5.top());
    QVERIFY(BarOf(stack, 12).top() < bar9.top());
    // The point under the cursor still names the same index, and the selection kept its id.
    QCOMPARE(stack->RowAt(bar9.center()), stack->RowOf(9));
    QCOMPARE(stack->SelectedIds(), QVector<quint64>{9});
    QCOMPARE(stack->HoveredId(), quint64{9});
    QVERIFY(stack->DescribeRow(stack->RowAt(bar9.center())).startsWith("index #9\n"));
  }

  // The last few sets are drawn on the stack: the output's bar in bands, one per input, sized as
  // the inputs were last shown.
  void pastSetsAreDrawnOnTheStack() {
    ClusterState state;
    const int a = state.AddNode("127.0.0.1:1", "node1");
    TelemetryPtr t = SnapshotWithMemtable("node1", 100000);
    AddIndex(t.get(), 5, 500);
    AddIndex(t.get(), 3, 1000);
    ApplySnapshot(state, a, t);
    CompactionView view(&state);
    view.resize(900, 640);
    view.SetNode(a);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    TelemetryPtr next = SnapshotWithMemtable("node1", 101000);
    AddIndex(next.get(), 8, 100);
    AddIndex(next.get(), 7, 2000);
    AddCompaction(next.get(), {0, 5, 3}, 7, 2000, 100500);
    AddCompaction(next.get(), {0}, 8, 100, 100900);  // A plain flush: nothing to join.
    next->mutable_storage()->set_memtable_entries(300);
    ApplySnapshot(state, a, next);

    const QVector<CompactionMark> marks = view.IndexStack()->DrawnMarks();
    QCOMPARE(marks.size(), 1);
    QCOMPARE(marks[0].output, quint64{7});
    QCOMPARE(marks[0].inputs, (QVector<quint64>{0, 5, 3}));
    QCOMPARE(marks[0].label, QString("mem + #5 + #3"));
    QCOMPARE(marks[0].shares, (QVector<double>{0.25, 0.25, 0.5}));  // mem: 2000 - 500 - 1000.
    QVERIFY(view.IndexStack()
                ->DescribeRow(view.IndexStack()->RowOf(7))
                .contains("merged from mem + #5 + #3"));
    // The next flush (memtable at capacity, 1000) merges #8 (100) and #7 (2000 > 1100: no).
    QCOMPARE(view.Model()->NextFlushInputs(), QVector<quint64>{8});
    QCOMPARE(view.NextFlushText(), QString("memtable at 30% \u2192 next flush merges mem + #8"));
    SaveScreenshot(&view, "compaction_view_sets.png");
  }

  // The predicted set is what the engine then merges: a real node, its memtable filled to
  // capacity (when a node flushes) round after round, each flush compared with the prediction.
  void nextFlushPredictionIsWhatTheEngineDoes() {
    StorageTestNode node;
    QVERIFY2(node.Start(), qPrintable(node.error()));
    ClusterState state;
    CompactionView view(&state);
    uint64_t next_id = 1;
    int merged_more_than_one = 0;
    for (int round = 0; round < 8; ++round) {
      const int index = node.Feed(&state);
      QVERIFY(index >= 0);
      view.SetNode(index);
      const CompactionModel& model = *view.Model();
      QVERIFY(model.HasData());
      const QVector<quint64> predicted = model.NextFlushInputs();
      const quint64 room = model.MemtableCapacity() - model.MemtableEntries();
      QVERIFY(room > 0);
      QVERIFY2(node.Put(next_id, int(room)), qPrintable(node.error()));  // New ids: full now.
      next_id += room;
      QVERIFY(node.node().store().Flush().ok());
      QVERIFY(node.Feed(&state) == index);
      QVERIFY(!model.Compactions().isEmpty());
      const CompactionEvent& done = model.Compactions().front();
      QVector<quint64> expected{0};
      expected += predicted;
      QCOMPARE(done.inputs, expected);
      if (predicted.size() > 1) ++merged_more_than_one;
      // A partly filled memtable for the next round, so the fill shown is not always 0%.
      QVERIFY2(node.Put(next_id, 100 + 37 * round), qPrintable(node.error()));
      next_id += 100 + 37 * round;
    }
    QVERIFY(merged_more_than_one > 0);  // The rounds covered sets of several indexes.
  }

  // B18: "while watched" is kept per node: switching away and back neither resets nor jumps,
  // and a node first shown late counts from when the console first saw it.
  void writeAmplificationWhileWatchedSurvivesNodeSwitches() {
    ClusterState state;
    const int a = state.AddNode("127.0.0.1:1", "a");
    const int b = state.AddNode("127.0.0.1:2", "b");
    CompactionView view(&state);
    view.SetNode(a);
    const auto frame = [&](int64_t ms, uint64_t a_index, uint64_t a_docs, uint64_t b_index,
                           uint64_t b_docs) {
      TelemetryPtr ta = SnapshotWithMemtable("a", ms), tb = SnapshotWithMemtable("b", ms);
      SetWrites(ta.get(), a_index, a_docs);
      SetWrites(tb.get(), b_index, b_docs);
      state.ApplyFrame({{a, ta, {}}, {b, tb, {}}}, ms);
    };
    frame(1000, 5000, 1000, 900, 300);   // First sight of both.
    frame(2000, 7000, 2000, 1900, 800);  // a: 2000 / 1000; b: 1000 / 500.
    QCOMPARE(view.Model()->ObservedWriteAmplification(), 2.0);
    view.SetNode(b);  // b was not shown, yet counts from its first sight.
    QCOMPARE(view.Model()->ObservedWriteAmplification(), 2.0);
    frame(3000, 10000, 3000, 2900, 1300);  // a: 5000 / 2000; b: 2000 / 1000.
    view.SetNode(a);
    QCOMPARE(view.Model()->ObservedWriteAmplification(), 2.5);
    QVERIFY(view.WriteAmplificationText().endsWith("; 2.50 while watched"));
    QVERIFY(view.findChildren<QLabel*>().size() > 0);
    bool explained = false;
    for (QLabel* label : view.findChildren<QLabel*>()) {
      explained = explained || (label->text() == view.WriteAmplificationText() &&
                                label->toolTip().contains("kept per node"));
    }
    QVERIFY(explained);
    // A restart (counters go back) rebases that node only.
    frame(4000, 100, 50, 3900, 1800);
    QCOMPARE(view.Model()->ObservedWriteAmplification(), -1.0);
    view.SetNode(b);
    QCOMPARE(view.Model()->ObservedWriteAmplification(), 3000.0 / 1500.0);
  }
};

RAILYARD_QTEST_MAIN(CompactionViewTest)
#include "tst_compaction_view.moc"
