// SPDX-License-Identifier: Apache-2.0
// The console at 300 nodes x 300 clients (issue 17): what keeps a frame, a seek and a long replay
// cheap, tested as behaviour (what is measured, signalled, kept or shown), never as a timing.
#include <QFontMetrics>
#include <QHeaderView>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTableView>
#include <QTest>
#include <memory>
#include <vector>

#include "tests/support/qtest_main.h"
#include "tests/ui/console_fixture.h"
#include "tests/ui/ui_test_support.h"
#include "ui/models/cluster_state.h"
#include "ui/models/overview_model.h"
#include "ui/models/slot_matrix_model.h"
#include "ui/models/slot_matrix_sort.h"
#include "ui/shell/column_fit.h"
#include "ui/shell/one_column_list_view.h"
#include "ui/views/slot_matrix_view.h"

using railyard::ui::ClusterState;
using railyard::ui::OverviewFilterModel;
using railyard::ui::OverviewModel;
using railyard::ui::SlotMatrixModel;
using railyard::ui::SlotMatrixView;
using railyard::ui::testing::ApplyGenerated;
using railyard::ui::testing::GeneratedCluster;

namespace {

// The scale: 300 nodes, 300 clients, each with a pool of 8 across the servers.
GeneratedCluster LargeCluster() {
  GeneratedCluster g;
  g.nodes = 300;
  g.clients = 300;
  return g;
}

// `table` over `model` at 900x300, its columns fitted (FitColumnsToWidth), shown and exposed.
bool ShowFitted(QTableView* table, QAbstractItemModel* model) {
  table->setModel(model);
  table->resize(900, 300);
  railyard::ui::FitColumnsToWidth(table);
  table->show();
  return QTest::qWaitForWindowExposed(table);
}

// The server cells (row, column) some dataChanged signal in `spy` covers.
int ServerCellsSignalled(const QSignalSpy& spy, int* outside_row = nullptr, int row = -1) {
  int cells = 0;
  for (const QList<QVariant>& signal : spy) {
    const auto top_left = signal[0].value<QModelIndex>();
    const auto bottom_right = signal[1].value<QModelIndex>();
    const int left = std::max(top_left.column(), int(SlotMatrixModel::kFirstServerColumn));
    if (bottom_right.column() < left) continue;
    const int count =
        (bottom_right.row() - top_left.row() + 1) * (bottom_right.column() - left + 1);
    cells += count;
    if (outside_row && (top_left.row() != row || bottom_right.row() != row)) *outside_row += count;
  }
  return cells;
}

// Counts the paint events a widget receives.
class ScalePaintCounter : public QObject {
 public:
  explicit ScalePaintCounter(QWidget* widget) { widget->installEventFilter(this); }
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Paint) ++count;
    return QObject::eventFilter(watched, event);
  }
  int count = 0;
};

// A real item model that counts how often a view asks for its text.
class CountingModel : public QStandardItemModel {
 public:
  using QStandardItemModel::QStandardItemModel;
  QVariant data(const QModelIndex& index, int role) const override {
    if (role == Qt::DisplayRole) ++display_reads;
    return QStandardItemModel::data(index, role);
  }
  mutable long display_reads = 0;
};

// Everything the slot matrix shows of each client and of each server with a column, highlights
// aside (a model that saw only the last frame highlights nothing).
QStringList MatrixContents(const SlotMatrixModel& model) {
  QStringList out;
  for (int row = 0; row < model.ClientCount(); ++row) {
    const SlotMatrixModel::Client& c = model.client(row);
    out << QString("client %1: %2 connections, %3 busy").arg(c.id).arg(c.connections).arg(c.busy);
    for (int s = 0; s < model.ServerCount(); ++s) {
      const SlotMatrixModel::Cell& cell = model.cell(row, s);
      if (cell.slots.isEmpty()) continue;
      QString slots;
      for (const SlotMatrixModel::Slot& slot : cell.slots) {
        slots += QString(" %1%2").arg(slot.slot).arg(slot.busy ? "*" : "");
      }
      out << QString("  %1:%2 rank %3").arg(model.ServerName(s), slots).arg(cell.rank);
    }
  }
  for (int s = 0; s < model.ServerCount(); ++s) {
    // A server only pools named early keeps its (empty) place without a column.
    if (model.ColumnOfServer(s) < 0) continue;
    const SlotMatrixModel::ServerTotals& t = model.Totals(s);
    out << QString("%1: %2 in use, %3 busy, highest %4")
               .arg(model.ServerName(s))
               .arg(t.in_use)
               .arg(t.busy)
               .arg(t.highest);
  }
  return out;
}

}  // namespace

class ConsoleScaleTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The matrix compares, per changed server, only the rows its connections are on and were on,
  // and keeps each client's busy count by what flipped: after frames with swaps, clients first
  // seen part way (rows inserted between others), a server draining and busy flags flipping, it
  // holds what a model shown only the last frame builds from scratch.
  void slotMatrixKeptFrameByFrameEqualsOneBuiltFromTheLastFrame() {
    GeneratedCluster g;
    g.nodes = 40;
    g.clients = 60;
    g.pool_size = 4;
    g.frames_per_swap = 3;
    ClusterState state;
    for (int n = 0; n < g.nodes; ++n) {
      state.AddNode(QString("10.9.0.%1:7001").arg(n), QString::fromStdString(g.NodeName(n)));
    }
    SlotMatrixModel kept(&state);
    auto apply = [&](int frame, int reporting) {
      const std::vector<std::vector<int>> assignment = g.Assignment(frame);
      std::vector<ClusterState::Update> updates;
      for (int n = 0; n < reporting; ++n) {
        const bool draining = n == 7 && frame >= 12 && frame < 20;
        updates.push_back({n, std::make_shared<const railyard::admin::Telemetry>(
                                  g.Telemetry(n, frame, draining, assignment))});
      }
      state.ApplyFrame(updates, g.TimeOf(frame));
    };
    // The first frames from three servers only: their clients first.
    for (int frame = 1; frame <= 4; ++frame) apply(frame, 3);
    const int first_rows = kept.ClientCount();
    for (int frame = 5; frame <= 30; ++frame) apply(frame, g.nodes);
    QVERIFY(first_rows > 0 && kept.ClientCount() > first_rows);
    SlotMatrixModel fresh(&state);
    apply(31, g.nodes);
    const QStringList expected = MatrixContents(fresh);
    QVERIFY(expected.size() > g.clients + g.nodes);
    const QStringList got = MatrixContents(kept);
    for (const QString& line : got) {
      if (!expected.contains(line)) qWarning("only kept: %s", qPrintable(line));
    }
    for (const QString& line : expected) {
      if (!got.contains(line)) qWarning("only fresh: %s", qPrintable(line));
    }
    QCOMPARE(got, expected);
  }

  // A replay seek re-adds every node, one row insertion each: the fitted table measures its
  // contents once for the lot (the first row's insertion and the last's), not once per row, which
  // read 300 x 300 / 2 cells per column at 300 nodes. The widest name, added last, still counts.
  void columnFitMeasuresRowsAddedTogetherOnce() {
    constexpr int kRows = 200, kColumns = 3;
    CountingModel model(0, kColumns);
    QTableView table;
    QVERIFY(ShowFitted(&table, &model));
    model.display_reads = 0;
    const QString widest = QStringLiteral("a-node-name-much-wider-than-the-others");
    for (int r = 0; r < kRows; ++r) {
      QList<QStandardItem*> row;
      for (int c = 0; c < kColumns; ++c) {
        row.append(new QStandardItem(r + 1 == kRows && c == 0 ? widest : QString("n%1").arg(r)));
      }
      model.appendRow(row);
    }
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
    // Once: kRows x kColumns reads to measure, and the visible rows painted (fewer).
    QVERIFY2(model.display_reads < 3L * kRows * kColumns,
             qPrintable(QString("%1 reads of the text").arg(model.display_reads)));
    QVERIFY(table.columnWidth(0) >= QFontMetrics(table.font()).horizontalAdvance(widest));
  }

  // A figure that gains digits (a queue position, a rate) gets its column widened once the view
  // has measured the changed cells, not when rows next come or go; a frame that changes every row
  // is measured over the rows in view only, a row out of view when it scrolls in, a hidden table's
  // when it is shown, and a user's dragged width stands.
  void columnFitWidensAColumnWhoseFigureGrew() {
    constexpr int kRows = 200, kColumns = 5;
    CountingModel model(0, kColumns);
    for (int r = 0; r < kRows; ++r) {
      QList<QStandardItem*> row;
      for (int c = 0; c < kColumns; ++c) row.append(new QStandardItem(QString::number(r % 10)));
      model.appendRow(row);
    }
    QTableView table;
    table.horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    QVERIFY(ShowFitted(&table, &model));
    QCoreApplication::processEvents();
    const int narrow = table.columnWidth(1);
    table.horizontalHeader()->resizeSection(2, 40);  // The user's width for column 2.

    const QString grown = QStringLiteral("1,312,689,001,234");
    const int text = QFontMetrics(table.font()).horizontalAdvance(grown);
    QVERIFY2(narrow < text, "the starting column must be narrower than the grown figure");
    model.display_reads = 0;
    for (int r = 0; r < kRows; ++r) model.item(r, 1)->setText(grown);
    model.item(0, 2)->setText(grown);
    QTRY_VERIFY_WITH_TIMEOUT(table.columnWidth(1) >= text, 5000);
    // The dragged column keeps the user's width (shared spare room aside): its text elides.
    QVERIFY2(table.columnWidth(2) < text, qPrintable(QString::number(table.columnWidth(2))));
    // Painting reads the rows in view; measuring read them once more, never all 200.
    const int in_view = table.rowAt(table.viewport()->height() - 1) - table.rowAt(0) + 1;
    QVERIFY(in_view > 0 && in_view < kRows / 2);
    QVERIFY2(model.display_reads < 8L * in_view * kColumns,
             qPrintable(QString("%1 reads of the text for %2 rows in view")
                            .arg(model.display_reads)
                            .arg(in_view)));
    // A figure that grew out of view is measured when it scrolls into view. A cell in view
    // changed with it shows that the check has run and passed over the row out of view.
    const QFontMetrics metrics(table.font());
    const QString far = QStringLiteral("a-name-far-below-the-rows-in-view");
    const QString probe = QStringLiteral("a probe in view, column 3");
    QVERIFY(table.columnWidth(0) < metrics.horizontalAdvance(far));
    QVERIFY(table.columnWidth(3) < metrics.horizontalAdvance(probe));
    model.item(kRows - 1, 0)->setText(far);
    model.item(0, 3)->setText(probe);
    QTRY_VERIFY_WITH_TIMEOUT(table.columnWidth(3) >= metrics.horizontalAdvance(probe), 5000);
    QVERIFY(table.columnWidth(0) < metrics.horizontalAdvance(far));
    table.scrollToBottom();
    QTRY_VERIFY_WITH_TIMEOUT(table.columnWidth(0) >= metrics.horizontalAdvance(far), 5000);

    // A figure that grew while its table was hidden (another tab) is measured when it is shown;
    // a second view of the same rows, shown all along, shows that the change has been seen.
    QTableView shown;
    QVERIFY(ShowFitted(&shown, &model));
    shown.scrollToBottom();
    table.hide();
    const QString longer = QStringLiteral("1,312,689,001,234,567,890,123,456,789,012");
    QVERIFY(table.columnWidth(1) < metrics.horizontalAdvance(longer));
    model.item(kRows - 1, 1)->setText(longer);
    QTRY_VERIFY_WITH_TIMEOUT(shown.columnWidth(1) >= metrics.horizontalAdvance(longer), 5000);
    QVERIFY(table.columnWidth(1) < metrics.horizontalAdvance(longer));
    table.show();
    QTRY_VERIFY_WITH_TIMEOUT(table.columnWidth(1) >= metrics.horizontalAdvance(longer), 5000);
  }

  // Between frames 1 and 2 of the generated cluster only each node's request rate moves: the
  // overview signals that column for the 300 rows, and nothing else (it signalled every row
  // whole, so the table repainted every visible cell each frame); the text is the new one.
  void overviewSignalsOnlyTheCellsWhoseTextChanged() {
    const GeneratedCluster g = LargeCluster();
    ClusterState state;
    OverviewModel model(&state);
    ApplyGenerated(&state, g, 1);
    const QString before = model.index(7, OverviewModel::kRequests).data().toString();
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    ApplyGenerated(&state, g, 2);
    QVERIFY(changed.count() >= 1);
    int rows = 0;
    for (const QList<QVariant>& signal : changed) {
      const auto top_left = signal[0].value<QModelIndex>();
      const auto bottom_right = signal[1].value<QModelIndex>();
      QCOMPARE(top_left.column(), int(OverviewModel::kRequests));
      QCOMPARE(bottom_right.column(), int(OverviewModel::kRequests));
      rows += bottom_right.row() - top_left.row() + 1;
    }
    QCOMPARE(rows, 300);
    const QString after = model.index(7, OverviewModel::kRequests).data().toString();
    QVERIFY(after != before);
    QCOMPARE(after, QString::number(g.Telemetry(7, 2).throughput().requests_per_s(), 'f', 0));
  }

  // The Nodes list (the main window's: the overview model in name order, showing the name column)
  // repaints when a name or a health colour changes, not for the figures every frame brings.
  void nodeListRepaintsForNamesAndHealthNotFigures() {
    GeneratedCluster g;
    g.nodes = 12;
    g.clients = 12;
    ClusterState state;
    OverviewModel model(&state);
    OverviewFilterModel order;
    order.setSourceModel(&model);
    order.sort(OverviewModel::kName, Qt::AscendingOrder);
    railyard::ui::OneColumnListView list;
    list.setModel(&order);
    list.setModelColumn(OverviewModel::kName);
    list.resize(200, 400);
    ApplyGenerated(&state, g, 1);
    ScalePaintCounter paints(list.viewport());
    list.show();
    QVERIFY(QTest::qWaitForWindowExposed(&list));
    QTRY_VERIFY(paints.count > 0);  // The first paint, after showing.
    QCoreApplication::processEvents();
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    paints.count = 0;
    for (int frame = 2; frame < 6; ++frame) {
      ApplyGenerated(&state, g, frame);
      QCoreApplication::processEvents();
    }
    QVERIFY(changed.count() > 0);  // The figures did change.
    QCOMPARE(paints.count, 0);
    // Node 1 goes lame duck: its health, hence its colour in the list, changes.
    std::vector<ClusterState::Update> updates;
    const std::vector<std::vector<int>> assignment = g.Assignment(6);
    for (int n = 0; n < g.nodes; ++n) {
      updates.push_back({n, std::make_shared<const railyard::admin::Telemetry>(
                                g.Telemetry(n, 6, n == 1, assignment))});
    }
    state.ApplyFrame(updates, g.TimeOf(6));
    QTRY_VERIFY(paints.count > 0);
  }

  // The 300 x 300 matrix scrolled to its far corner (the last server, and the last client holding a
  // connection there) shows that cell with its slot under the right headers: what a view that
  // paints only visible cells must still get right at the edges.
  void slotMatrixFarCornerShowsTheRightCell() {
    const GeneratedCluster g = LargeCluster();
    ClusterState state;
    SlotMatrixView view(&state);
    view.resize(1200, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    ApplyGenerated(&state, g, 1);
    QCoreApplication::processEvents();
    const int server = g.nodes - 1;
    int client = g.clients - 1;
    while (client >= 0 && g.SlotsOf(client, server, 1).empty()) --client;
    QVERIFY(client > g.clients / 2);
    QTableView* matrix = view.Matrix();
    QAbstractItemModel* shown = matrix->model();
    const QModelIndex source =
        view.Model()->index(view.Model()->RowOfClient(GeneratedCluster::ClientId(client)),
                            view.Model()->ColumnOfServer(server));
    const QModelIndex cell = view.SortModel()->mapFromSource(source);
    QCOMPARE(cell.column(), shown->columnCount() - 1);
    matrix->scrollTo(cell);
    QCoreApplication::processEvents();
    const QRect rect = matrix->visualRect(cell);
    QVERIFY(matrix->viewport()->rect().contains(rect.center()));
    QCOMPARE(matrix->indexAt(rect.center()), cell);
    QCOMPARE(shown->headerData(cell.column(), Qt::Horizontal).toString(),
             QString::fromStdString(g.NodeName(server)));
    QCOMPARE(shown->headerData(cell.row(), Qt::Vertical).toString(),
             QString::fromStdString(g.ClientName(client)));
    const QVariantList listed = cell.data(SlotMatrixModel::kSlotsRole).toList();
    QCOMPARE(listed.size(), 1);
    QCOMPARE(listed[0].toUInt(), g.SlotsOf(client, server, 1).at(0));
    QVERIFY(!cell.data(Qt::DisplayRole).toString().isEmpty());
  }

  // Busy flags flip on most connections every frame; the cells show slots and ranks, which a
  // busy flag does not change: such a frame signals the client figures, no server cell (it
  // signalled every row whole, repainting the whole visible matrix each frame).
  void slotMatrixBusyOnlyFrameSignalsFiguresNotCells() {
    const GeneratedCluster g = LargeCluster();
    ClusterState state;
    SlotMatrixModel model(&state);
    ApplyGenerated(&state, g, 1);
    QCOMPARE(model.ClientCount(), 300);
    QCOMPARE(model.columnCount(), SlotMatrixModel::kFirstServerColumn + 300);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    ApplyGenerated(&state, g, 2);  // No swap until frame 10: only busy flags and counters move.
    QVERIFY(changed.count() >= 1);
    QCOMPARE(ServerCellsSignalled(changed), 0);
    const QModelIndex busy = model.index(0, SlotMatrixModel::kBusyColumn);
    bool busy_signalled = false;
    for (const QList<QVariant>& signal : changed) {
      busy_signalled |= signal[0].value<QModelIndex>().column() <= busy.column() &&
                        signal[1].value<QModelIndex>().column() >= busy.column() &&
                        signal[0].value<QModelIndex>().row() == 0;
    }
    QVERIFY(busy_signalled);
  }

  // At frame 10 client 0 moves its first connection, which shifts the slots of the clients after
  // it on the two servers: exactly those clients' rows are signalled (their ranks may move), and
  // no cell of any other row, though the changes lie far apart in the matrix.
  void slotMatrixSwapSignalsOnlyTheRowsWhoseSlotsMoved() {
    const GeneratedCluster g = LargeCluster();
    ClusterState state;
    SlotMatrixModel model(&state);
    ApplyGenerated(&state, g, 9);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    ApplyGenerated(&state, g, 10);
    QVERIFY(g.ServersOf(0, 9) != g.ServersOf(0, 10));
    // Clients whose slot on some server differs between the frames.
    const auto before = g.Assignment(9), after = g.Assignment(10);
    std::vector<bool> moved(static_cast<size_t>(g.clients), false);
    for (int s = 0; s < g.nodes; ++s) {
      const auto& a = before[size_t(s)];
      const auto& b = after[size_t(s)];
      for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
        if (i < a.size() && (i >= b.size() || b[i] != a[i])) moved[size_t(a[i])] = true;
        if (i < b.size() && (i >= a.size() || a[i] != b[i])) moved[size_t(b[i])] = true;
      }
    }
    std::vector<bool> row_signalled(static_cast<size_t>(model.ClientCount()), false);
    for (const QList<QVariant>& signal : changed) {
      const auto top_left = signal[0].value<QModelIndex>();
      const auto bottom_right = signal[1].value<QModelIndex>();
      if (bottom_right.column() < SlotMatrixModel::kFirstServerColumn) continue;
      QCOMPARE(top_left.row(), bottom_right.row());  // Rows and cells, never a box of rows.
      row_signalled[size_t(top_left.row())] = true;
    }
    int moved_count = 0;
    for (int c = 0; c < g.clients; ++c) {
      const int row = model.RowOfClient(GeneratedCluster::ClientId(c));
      QCOMPARE(bool(row_signalled[size_t(row)]), bool(moved[size_t(c)]));
      moved_count += moved[size_t(c)] ? 1 : 0;
    }
    QVERIFY(moved_count >= 1 && moved_count < g.clients / 4);
    // The cell client 0 moved to holds its slot there, highlighted.
    const int to = g.ServersOf(0, 10)[0];
    const QModelIndex cell =
        model.index(model.RowOfClient(GeneratedCluster::ClientId(0)), model.ColumnOfServer(to));
    QCOMPARE(cell.data(SlotMatrixModel::kSlotsRole).toList().size(), 1);
    QVERIFY(cell.data(SlotMatrixModel::kHighlightedRole).toBool());
  }
};

RAILYARD_QTEST_MAIN(ConsoleScaleTest)
#include "tst_console_scale.moc"
