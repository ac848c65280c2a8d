// SPDX-License-Identifier: Apache-2.0
// The Slots tab: the matrix view, its side panel, totals, marks and sorting, against generated
// telemetry (every expected value recomputed from the generator) and a generated recording
// replayed, in an offscreen window the size of a laptop screen.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QHeaderView>
#include <QImage>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <set>

#include "tests/support/qtest_main.h"
#include "tests/ui/console_fixture.h"
#include "tests/ui/screenshot.h"
#include "tests/ui/ui_test_support.h"
#include "ui/models/cluster_state.h"
#include "ui/models/flow_model.h"
#include "ui/models/slot_matrix_client_detail.h"
#include "ui/models/slot_matrix_model.h"
#include "ui/models/slot_matrix_sort.h"
#include "ui/models/slot_matrix_totals.h"
#include "ui/sources/replay_source.h"
#include "ui/views/slot_matrix_view.h"

using railyard::ui::ClientDetailModel;
using railyard::ui::ClusterState;
using railyard::ui::FlowModel;
using railyard::ui::ReplaySource;
using railyard::ui::SlotMatrixModel;
using railyard::ui::SlotMatrixSortModel;
using railyard::ui::SlotMatrixTotalsModel;
using railyard::ui::SlotMatrixView;
using railyard::ui::testing::ApplyGenerated;
using railyard::ui::testing::GeneratedCluster;

using railyard::ui::testing::SaveScreenshot;
namespace {

using Telemetry = railyard::admin::Telemetry;

// Checks `model`'s invariants now and after every change while the test runs.
std::unique_ptr<QAbstractItemModelTester> Tester(QAbstractItemModel* model) {
  return std::make_unique<QAbstractItemModelTester>(
      model, QAbstractItemModelTester::FailureReportingMode::QtTest);
}

// A client process's own telemetry (railyardctl load --admin-listen): no slot table, one pool.
Telemetry ClientProcess(const std::string& name, quint64 id, int64_t unix_ms, uint64_t retries,
                        uint64_t rejections, uint64_t failures) {
  Telemetry t;
  t.set_unix_ms(unix_ms);
  t.set_node(name);
  t.set_role(railyard::admin::ROLE_CLIENT);
  t.set_state(railyard::admin::NODE_SERVING);
  railyard::admin::ClientPool* pool = t.add_pools();
  pool->set_client_id(id);
  pool->set_client_name(name);
  pool->set_capacity(8);
  pool->mutable_counters()->set_retries(retries);
  pool->mutable_counters()->set_rejections(rejections);
  pool->mutable_counters()->set_failures(failures);
  return t;
}

// The view in a window the size of a laptop screen, shown offscreen and laid out.
struct Window {
  explicit Window(ClusterState* state) : view(state) {
    view.resize(1280, 800);
    view.show();
    QCoreApplication::processEvents();
  }
  SlotMatrixView view;
};

// What the side panel's rows show: how many, and how many of them say "busy".
std::pair<int, int> DetailRows(const SlotMatrixView& view) {
  const QAbstractItemModel* rows = view.Detail()->model();
  int busy = 0;
  for (int r = 0; r < rows->rowCount(); ++r) {
    busy += rows->index(r, ClientDetailModel::kBusy).data().toString() == "busy" ? 1 : 0;
  }
  return {rows->rowCount(), busy};
}

}  // namespace

class SlotMatrixTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // B1: the side panel's title follows the selected client frame by frame.
  void sidePanelTitleFollowsTheSelectedClient() {
    GeneratedCluster g;
    g.nodes = 6;
    g.clients = 10;
    g.pool_size = 4;
    ClusterState state;
    SlotMatrixView view(&state);
    ApplyGenerated(&state, g, 0);
    const int client = 7;
    view.SelectClient(view.Model()->RowOfClient(GeneratedCluster::ClientId(client)));
    std::set<int> busy_seen;
    for (int frame = 1; frame <= 4; ++frame) {
      ApplyGenerated(&state, g, frame);
      const auto [rows, busy] = DetailRows(view);
      int expected_busy = 0;
      for (int s : g.ServersOf(client, frame)) expected_busy += (client + frame + s) % 3 == 0;
      QCOMPARE(rows, g.pool_size);
      QCOMPARE(busy, expected_busy);
      QCOMPARE(view.DetailTitle(),
               QString("client-007: pool 4, %1 connected, %2 busy").arg(rows).arg(busy));
      busy_seen.insert(busy);
    }
    QVERIFY(busy_seen.size() > 1);  // Else a stale title could pass.
  }

  // B2: a replay seek never leaves the previous client's rows under "Select a client".
  void replaySeekNeverLeavesRowsOfNoClient() {
    QTemporaryDir dir;
    GeneratedCluster g;
    g.nodes = 4;
    g.clients = 8;
    g.pool_size = 3;
    const QString path = dir.filePath("slots.rec");
    QVERIFY(railyard::ui::testing::WriteGeneratedRecording(path.toStdString(), g, 40).ok());
    ClusterState state;
    SlotMatrixView view(&state);
    ReplaySource replay(&state);
    QString error;
    QVERIFY2(replay.Open(path, &error), qPrintable(error));
    replay.Seek(g.TimeOf(20));
    const int row = view.Model()->RowOfClient(GeneratedCluster::ClientId(5));
    QVERIFY(row >= 0);
    view.SelectClient(row);
    QCOMPARE(DetailRows(view).first, 3);
    QVERIFY(view.DetailTitle().startsWith("client-005:"));
    for (int frame : {5, 30, 10}) {
      replay.Seek(g.TimeOf(frame));
      const auto [rows, busy] = DetailRows(view);
      const QString title = view.DetailTitle();
      if (title.startsWith("Select a client")) {
        QCOMPARE(rows, 0);
      } else {
        QVERIFY2(title.startsWith("client-005:"), qPrintable(title));
        QVERIFY(title.endsWith(QString("%1 connected, %2 busy").arg(rows).arg(busy)));
      }
    }
  }

  // B9: a watched client process is a row (once, by client_id), never a server column.
  void aClientProcessIsOneRowAndNoColumn() {
    GeneratedCluster g;
    g.nodes = 3;
    g.clients = 4;
    g.pool_size = 2;
    ClusterState state;
    SlotMatrixView view(&state);
    SlotMatrixModel& model = *view.Model();
    const auto tester = Tester(&model);
    const auto sort_tester = Tester(view.SortModel());
    const auto totals_tester = Tester(view.TotalsModel());
    ApplyGenerated(&state, g, 0);
    const quint64 load_id = 0x77;
    const int load = state.AddNode("127.0.0.1:9100");  // Known by address until it answers.
    QCOMPARE(model.columnCount(), SlotMatrixModel::kFirstServerColumn + 3);
    // A first poll that fails: it might be a server that is down, so it gets a marked column...
    state.ApplyFrame({{load, nullptr, "connection refused"}}, g.TimeOf(0) + 50);
    QCOMPARE(model.columnCount(), SlotMatrixModel::kFirstServerColumn + 4);
    QCOMPARE(model
                 .headerData(model.ColumnOfServer(load), Qt::Horizontal,
                             SlotMatrixModel::kServerMarkRole)
                 .toString(),
             QString("unreachable"));
    QCOMPARE(view.TotalsModel()->columnCount(), model.columnCount());
    // ...until it answers as a client process: the column goes, its pool becomes a row.
    // Its connections appear in node 0's slot table, under the same client_id.
    Telemetry server = g.Telemetry(0, 1);
    for (uint32_t slot : {10u, 11u}) {
      railyard::admin::SlotEntry* e = server.add_slots();
      e->set_slot(slot);
      e->set_client_id(load_id);
      e->set_client_name("railyardctl-load");
    }
    state.ApplyFrame({{0, std::make_shared<const Telemetry>(server)},
                      {load, std::make_shared<const Telemetry>(ClientProcess(
                                 "railyardctl-load", load_id, g.TimeOf(1), 0, 0, 0))}},
                     g.TimeOf(1));
    QCOMPARE(model.columnCount(), SlotMatrixModel::kFirstServerColumn + 3);
    QCOMPARE(view.TotalsModel()->columnCount(), model.columnCount());
    QCOMPARE(view.Matrix()->horizontalHeader()->count(), model.columnCount());
    QCOMPARE(model.ColumnOfServer(load), -1);
    for (int c = SlotMatrixModel::kFirstServerColumn; c < model.columnCount(); ++c) {
      QVERIFY(!model.headerData(c, Qt::Horizontal).toString().contains("railyardctl"));
    }
    QCOMPARE(model.rowCount(), g.clients + 1);
    int named = 0;
    for (int r = 0; r < model.rowCount(); ++r) {
      named += model.headerData(r, Qt::Vertical).toString() == "railyardctl-load" ? 1 : 0;
    }
    QCOMPARE(named, 1);
    const int row = model.RowOfClient(load_id);
    QCOMPARE(model.PoolSize(row), 8);  // Its own pool's capacity.
    QCOMPARE(model.index(row, model.ColumnOfServer(0)).data().toString(), QString("10 11"));
  }

  // The client's own figures: rates from consecutive snapshots of its pool counters.
  void clientFiguresAreRatesOfItsPoolCounters() {
    ClusterState state;
    SlotMatrixModel model(&state);
    const auto tester = Tester(&model);
    const int load = state.AddNode("127.0.0.1:9100");
    const int64_t t0 = 1'750'000'000'000;
    auto apply = [&](int64_t at, uint64_t retries, uint64_t rejections, uint64_t failures) {
      state.ApplyFrame({{load, std::make_shared<const Telemetry>(ClientProcess(
                                   "load", 0x77, at, retries, rejections, failures))}},
                       at);
    };
    apply(t0, 100, 5, 0);
    const int row = model.RowOfClient(0x77);
    QVERIFY(row >= 0);
    QCOMPARE(model.index(row, SlotMatrixModel::kRetriesColumn).data(), QVariant());  // One sample.
    apply(t0 + 2000, 160, 5, 3);
    QCOMPARE(model.index(row, SlotMatrixModel::kRetriesColumn).data().toString(), QString("30"));
    QCOMPARE(model.index(row, SlotMatrixModel::kRejectionsColumn).data().toString(),
             QString("0.0"));
    QCOMPARE(model.index(row, SlotMatrixModel::kFailuresColumn).data().toString(), QString("1.5"));
  }

  // B7: at 20 servers named backend-1..backend-20, every header reads whole in 1280x800.
  void headersAndCellsReadWholeAtTwentyServers() {
    ClusterState state;
    Window w(&state);
    SlotMatrixView& view = w.view;
    GeneratedCluster g;
    g.nodes = 20;
    g.clients = 50;
    g.pool_size = 8;
    for (int n = 0; n < g.nodes; ++n) {
      state.AddNode(QString("10.0.0.%1:7001").arg(n), QString("backend-%1").arg(n + 1));
    }
    std::vector<ClusterState::Update> updates;
    for (int n = 0; n < g.nodes; ++n) {
      Telemetry t = g.Telemetry(n, 0);
      t.set_node("backend-" + std::to_string(n + 1));
      if (n == 9) {  // backend-10: client-000 holds five slots there.
        for (uint32_t slot = 40; slot < 45; ++slot) {
          railyard::admin::SlotEntry* e = t.add_slots();
          e->set_slot(slot);
          e->set_client_id(GeneratedCluster::ClientId(0));
          e->set_client_name(GeneratedCluster::ClientName(0));
        }
      }
      updates.push_back({n, std::make_shared<const Telemetry>(t)});
    }
    state.ApplyFrame(updates, g.TimeOf(0));
    QCoreApplication::processEvents();
    QCOMPARE(view.size(), QSize(1280, 800));  // Nothing forced it wider.
    QHeaderView* header = view.Matrix()->horizontalHeader();
    QCOMPARE(header->count(), SlotMatrixModel::kFirstServerColumn + 20);
    QCOMPARE(header->textElideMode(), Qt::ElideMiddle);
    const int margins = 2 * view.style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
    for (int n = 0; n < g.nodes; ++n) {
      const int column = view.Model()->ColumnOfServer(n);
      const QString name = QString("backend-%1").arg(n + 1);
      QCOMPARE(view.Model()->headerData(column, Qt::Horizontal).toString(), name);
      QVERIFY2(
          header->sectionSize(column) >= header->fontMetrics().horizontalAdvance(name) + margins,
          qPrintable(name));
      QCOMPARE(view.Totals()->columnWidth(column), header->sectionSize(column));
    }
    for (int c = 0; c < SlotMatrixModel::kFirstServerColumn; ++c) {
      const QString name = view.Model()->headerData(c, Qt::Horizontal).toString();
      QVERIFY2(header->sectionSize(c) >= header->fontMetrics().horizontalAdvance(name) + margins,
               qPrintable(name));
    }
    // A cell of many slots: their count, whole, and every slot in the tooltip.
    const int row = view.Model()->RowOfClient(GeneratedCluster::ClientId(0));
    const QModelIndex many = view.Model()->index(row, view.Model()->ColumnOfServer(9));
    QCOMPARE(many.data(SlotMatrixModel::kSlotsRole).toList().size(),
             qsizetype(g.SlotsOf(0, 9, 0).size() + 5));
    const QString text = many.data().toString();
    QVERIFY2(text.endsWith(" slots"), qPrintable(text));
    QVERIFY(view.Matrix()->columnWidth(many.column()) >=
            view.Matrix()->fontMetrics().horizontalAdvance(text) + 4);
    for (int slot = 40; slot < 45; ++slot) {
      QVERIFY(many.data(Qt::ToolTipRole).toString().contains(QString("slot %1:").arg(slot)));
    }
    // The side panel shows every column whole.
    view.SelectClient(row);
    QCoreApplication::processEvents();
    QHeaderView* detail = view.Detail()->horizontalHeader();
    QVERIFY2(detail->length() <= view.Detail()->viewport()->width(),
             qPrintable(
                 QString("%1 > %2").arg(detail->length()).arg(view.Detail()->viewport()->width())));
    for (int c = 0; c < detail->count(); ++c) {
      const QString name = view.Detail()->model()->headerData(c, Qt::Horizontal).toString();
      QVERIFY(detail->sectionSize(c) >= detail->fontMetrics().horizontalAdvance(name));
    }
    // Selected, the row keeps its rank colours (a frame marks the selection, not a fill).
    view.Matrix()->selectRow(view.SortModel()->mapFromSource(view.Model()->index(row, 0)).row());
    QCoreApplication::processEvents();
    QVERIFY(view.Matrix()->selectionModel()->isRowSelected(
        view.SortModel()->mapFromSource(view.Model()->index(row, 0)).row()));
    const int best = view.Model()->ColumnOfServer(g.ServersOf(0, 0).front());
    const QModelIndex coloured = view.SortModel()->mapFromSource(view.Model()->index(row, best));
    view.Matrix()->scrollTo(coloured);
    QCoreApplication::processEvents();
    const QImage picture = view.Matrix()->viewport()->grab().toImage();
    const QRect rect = view.Matrix()->visualRect(coloured);
    const QColor painted = picture.pixelColor((rect.topLeft() + QPoint(3, rect.height() / 2)) *
                                              picture.devicePixelRatio());
    QCOMPARE(painted.name(), coloured.data(Qt::BackgroundRole).value<QColor>().name());
    SaveScreenshot(&view, "slots_50x20.png");
  }

  // Per-server totals: slots in use, highest slot held, share busy.
  void totalsSumEachServersColumn() {
    GeneratedCluster g;
    g.nodes = 8;
    g.clients = 30;
    g.pool_size = 4;
    ClusterState state;
    SlotMatrixModel model(&state);
    SlotMatrixTotalsModel totals(&model);
    const auto tester = Tester(&totals);
    ApplyGenerated(&state, g, 3);
    QCOMPARE(totals.columnCount(), model.columnCount());
    const auto assignment = g.Assignment(3);
    for (int s = 0; s < g.nodes; ++s) {
      const int column = model.ColumnOfServer(s);
      const auto& served = assignment[size_t(s)];
      int busy = 0;
      for (int c : served) busy += (c + 3 + s) % 3 == 0 ? 1 : 0;
      QCOMPARE(totals.index(SlotMatrixTotalsModel::kInUse, column).data().toInt(),
               int(served.size()));
      QCOMPARE(totals.index(SlotMatrixTotalsModel::kHighest, column).data().toInt(),
               int(served.size()) - 1);
      QCOMPARE(totals.index(SlotMatrixTotalsModel::kBusyShare, column).data().toString(),
               QString("%1%").arg(qRound(100.0 * busy / double(served.size()))));
    }
    QCOMPARE(
        totals.index(SlotMatrixTotalsModel::kInUse, SlotMatrixModel::kPoolColumn).data().toInt(),
        g.clients * g.pool_size);
  }

  // A drained server and an unreachable one say so in their header, totals and empty cells.
  void drainedAndDownServersAreMarked() {
    GeneratedCluster g;
    g.nodes = 6;
    g.clients = 10;
    g.pool_size = 3;
    ClusterState state;
    Window w(&state);
    SlotMatrixModel& model = *w.view.Model();
    SlotMatrixTotalsModel& totals = *w.view.TotalsModel();
    const auto tester = Tester(&model);
    ApplyGenerated(&state, g, 0);
    QCOMPARE(model.headerData(model.ColumnOfServer(2), Qt::Horizontal).toString(), QString("n002"));
    ApplyGenerated(&state, g, 1, {2});
    state.ApplyFrame({{4, nullptr, "UNAVAILABLE"}}, g.TimeOf(1) + 50);
    state.Tick(g.TimeOf(1) + 50 + SlotMatrixModel::kHighlightMs);  // Highlights fade.
    for (const auto& [server, mark] :
         {std::pair{2, QString("lame duck")}, std::pair{4, QString("unreachable")}}) {
      const int column = model.ColumnOfServer(server);
      QCOMPARE(model.headerData(column, Qt::Horizontal).toString(),
               QString("%1\n%2").arg(QString::fromStdString(g.NodeName(server)), mark));
      QCOMPARE(
          model.headerData(column, Qt::Horizontal, SlotMatrixModel::kServerMarkRole).toString(),
          mark);
      int hatched = 0;
      for (int r = 0; r < model.rowCount(); ++r) {
        const QModelIndex cell = model.index(r, column);
        QCOMPARE(cell.data(SlotMatrixModel::kServerMarkRole).toString(), mark);
        if (!cell.data(SlotMatrixModel::kSlotsRole).toList().isEmpty()) continue;
        QCOMPARE(cell.data(Qt::BackgroundRole).value<QBrush>().style(), Qt::BDiagPattern);
        ++hatched;
      }
      QVERIFY(hatched > 0);
    }
    // The unreachable server holds nothing any more; its totals say why.
    QCOMPARE(
        totals.index(SlotMatrixTotalsModel::kBusyShare, model.ColumnOfServer(4)).data().toString(),
        QString("unreachable"));
    w.view.SelectClient(0);
    SaveScreenshot(&w.view, "slots_drained_and_down.png");
    // A serving server's empty cells stay plain.
    const int serving = model.ColumnOfServer(0);
    for (int r = 0; r < model.rowCount(); ++r) {
      if (model.index(r, serving).data(SlotMatrixModel::kSlotsRole).toList().isEmpty()) {
        QVERIFY(!model.index(r, serving).data(Qt::BackgroundRole).isValid());
      }
    }
  }

  // Clients sort by name (naturally), by slots held and by busy share; ties keep name order.
  void clientsSortByNameSlotsAndBusyShare() {
    ClusterState state;
    SlotMatrixView view(&state);
    const auto tester = Tester(view.SortModel());
    state.AddNode("10.0.0.1:7001", "backend-1");
    Telemetry t;
    t.set_node("backend-1");
    t.set_role(railyard::admin::ROLE_SERVER);
    t.set_state(railyard::admin::NODE_SERVING);
    // name: slots (busy of them)
    const std::vector<std::tuple<std::string, int, int>> clients = {
        {"c-10", 1, 1}, {"c-2", 4, 1}, {"c-1", 2, 2}, {"c-3", 4, 3}};
    uint32_t slot = 0;
    for (size_t i = 0; i < clients.size(); ++i) {
      const auto& [name, slots, busy] = clients[i];
      for (int k = 0; k < slots; ++k) {
        railyard::admin::SlotEntry* e = t.add_slots();
        e->set_slot(slot++);
        e->set_client_id(0x100 + i);
        e->set_client_name(name);
        e->set_busy(k < busy);
      }
    }
    state.ApplyFrame({{0, std::make_shared<const Telemetry>(t)}}, 1'750'000'000'000);
    auto order = [&] {
      QStringList names;
      for (int r = 0; r < view.SortModel()->rowCount(); ++r) {
        names << view.SortModel()->headerData(r, Qt::Vertical).toString();
      }
      return names;
    };
    QCOMPARE(order(), QStringList({"c-1", "c-2", "c-3", "c-10"}));
    view.SortChoice()->setCurrentIndex(1);
    QCOMPARE(order(), QStringList({"c-2", "c-3", "c-1", "c-10"}));
    view.SortChoice()->setCurrentIndex(2);  // 1/1, 2/2, 3/4, 1/4
    QCOMPARE(order(), QStringList({"c-1", "c-10", "c-3", "c-2"}));
    // Selecting a sorted row shows that client.
    view.Matrix()->setCurrentIndex(view.SortModel()->index(3, 0));
    QVERIFY(view.DetailTitle().startsWith("c-2:"));
  }

  // A server only a client's pool names (no watched node has its address) had no column, so the
  // client's slots there were nowhere. It gets one, named by its address and marked "not
  // watched", until a node claims the address: then that node's column holds them, once.
  // A hidden Slots tab's model does no per-frame work and signals nothing; shown again, it
  // presents what a model shown all along presents: slots, ranks, marks, client rates.
  void aHiddenMatrixCatchesUpWhenShown() {
    GeneratedCluster g;
    g.nodes = 12;
    g.clients = 30;
    g.pool_size = 4;
    g.frames_per_swap = 3;
    ClusterState state;
    SlotMatrixModel always(&state), hidden(&state);
    const auto tester = Tester(&hidden);
    ApplyGenerated(&state, g, 0);
    const int load = state.AddNode("127.0.0.1:9100");
    // A client process whose retries grow faster and faster: a rate averaged over the hidden
    // frames would differ from the last interval's.
    auto frame = [&](int f, const std::set<int>& lame) {
      ApplyGenerated(&state, g, f, lame);
      const uint64_t n = uint64_t(f);
      state.ApplyFrame({{load, std::make_shared<const Telemetry>(
                                   ClientProcess("load", 0x77, g.TimeOf(f), n * n * 10, n, 0))}},
                       g.TimeOf(f) + 1);
    };
    for (int f = 1; f < 5; ++f) frame(f, {});
    hidden.SetActive(false);
    QSignalSpy changed(&hidden, &QAbstractItemModel::dataChanged);
    QSignalSpy headers(&hidden, &QAbstractItemModel::headerDataChanged);
    QSignalSpy updated(&hidden, &SlotMatrixModel::Updated);
    QSignalSpy always_changed(&always, &QAbstractItemModel::dataChanged);
    // 40 frames: connections swap, node 3 drains from frame 20.
    for (int f = 5; f < 45; ++f) frame(f, f >= 20 ? std::set<int>{3} : std::set<int>{});
    QVERIFY(always_changed.count() > 40);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(headers.count(), 0);
    QCOMPARE(updated.count(), 0);
    hidden.SetActive(true);
    QVERIFY(changed.count() > 0);
    QCOMPARE(updated.count(), 1);
    QCOMPARE(hidden.rowCount(), always.rowCount());
    QCOMPARE(hidden.columnCount(), always.columnCount());
    const int marked = always.ColumnOfServer(3);
    QVERIFY(marked >= 0);
    QCOMPARE(hidden.headerData(marked, Qt::Horizontal, SlotMatrixModel::kServerMarkRole),
             QVariant(QString("lame duck")));
    for (int c = 0; c < always.columnCount(); ++c) {
      for (int role :
           {int(Qt::DisplayRole), int(Qt::ToolTipRole), int(SlotMatrixModel::kServerMarkRole)}) {
        QCOMPARE(hidden.headerData(c, Qt::Horizontal, role),
                 always.headerData(c, Qt::Horizontal, role));
      }
    }
    int cells = 0;
    for (int r = 0; r < always.rowCount(); ++r) {
      QCOMPARE(hidden.headerData(r, Qt::Vertical), always.headerData(r, Qt::Vertical));
      for (int c = 0; c < always.columnCount(); ++c) {
        // The background is the rank's colour (a highlight aside: see SetActive).
        for (int role :
             {int(Qt::DisplayRole), int(Qt::ToolTipRole), int(SlotMatrixModel::kSlotsRole)}) {
          QCOMPARE(hidden.index(r, c).data(role), always.index(r, c).data(role));
        }
        if (!hidden.index(r, c).data(SlotMatrixModel::kHighlightedRole).toBool() &&
            !always.index(r, c).data(SlotMatrixModel::kHighlightedRole).toBool()) {
          QCOMPARE(hidden.index(r, c).data(Qt::BackgroundRole),
                   always.index(r, c).data(Qt::BackgroundRole));
        }
        cells += hidden.index(r, c).data().isValid() ? 1 : 0;
      }
    }
    QVERIFY(cells > g.clients * 2);
    // The client's rate is the last interval's: (44² - 43²) * 10 per 100 ms.
    const int row = hidden.RowOfClient(0x77);
    QVERIFY(row >= 0);
    QCOMPARE(hidden.index(row, SlotMatrixModel::kRetriesColumn).data().toString(), QString("8700"));
  }

  // The view switches its model off while hidden (another tab shown) and on when shown.
  void theViewPausesItsModelWhileHidden() {
    GeneratedCluster g;
    g.nodes = 4;
    g.clients = 6;
    ClusterState state;
    Window window(&state);
    QVERIFY(window.view.Model()->Active());
    window.view.hide();
    QVERIFY(!window.view.Model()->Active());
    QSignalSpy changed(window.view.Model(), &QAbstractItemModel::dataChanged);
    for (int f = 0; f < 5; ++f) ApplyGenerated(&state, g, f);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(window.view.Model()->rowCount(), 0);  // Nothing applied yet.
    window.view.show();
    QVERIFY(window.view.Model()->Active());
    QCOMPARE(window.view.Model()->rowCount(), g.clients);
  }

  // Which processes are servers, which clients, and which servers only a pool names: worked out
  // once, by the cluster state, and the slot matrix and the flow show the same, as nodes answer,
  // claim an address, go and come back.
  void theSlotMatrixAndTheFlowShareOneTopology() {
    ClusterState state;
    SlotMatrixModel matrix(&state);
    FlowModel flow(&state);
    const quint64 id = 0x78;
    const std::string unwatched = "10.0.0.9:7000";
    state.AddNode("10.0.0.1:7001", "backend-1");
    state.AddNode("10.0.1.1:7001", "loadgen");
    auto server = [](const std::string& name, const std::string& address) {
      Telemetry t;
      t.set_node(name);
      t.set_role(railyard::admin::ROLE_SERVER);
      t.set_state(railyard::admin::NODE_SERVING);
      t.set_service_address(address);
      return std::make_shared<const Telemetry>(t);
    };
    Telemetry client = ClientProcess("loadgen", id, 1'750'000'000'000, 0, 0, 0);
    for (const auto& [address, slot] :
         std::vector<std::pair<std::string, uint32_t>>{{"10.0.0.1:7000", 0}, {unwatched, 1}}) {
      railyard::admin::PoolEntry* e = client.mutable_pools(0)->add_entries();
      e->set_server(address);
      e->set_slot(slot);
    }
    const auto client_telemetry = std::make_shared<const Telemetry>(client);
    // The servers each model shows, watched by node index, unwatched by address.
    auto matrix_servers = [&] {
      QStringList names;
      for (int c = SlotMatrixModel::kFirstServerColumn; c < matrix.columnCount(); ++c) {
        const int s = matrix.ServerOfColumn(c);
        names << (matrix.IsWatched(s) ? QString("node %1").arg(s) : matrix.ServerName(s));
      }
      names.sort();
      return names;
    };
    auto flow_servers = [&] {
      QStringList names;
      for (int s : flow.ServerOrder()) {
        const FlowModel::Server& server = flow.Servers()[size_t(s)];
        names << (server.watched() ? QString("node %1").arg(server.node) : server.name);
      }
      names.sort();
      return names;
    };
    qint64 now = 1'750'000'000'000;
    auto frame = [&](std::vector<ClusterState::Update> updates) {
      now += 1000;
      state.ApplyFrame(updates, now);
    };

    frame({{0, server("backend-1", "10.0.0.1:7000")}, {1, client_telemetry}});
    QCOMPARE(state.RoleOf(0), ClusterState::Role::kServer);
    QCOMPARE(state.RoleOf(1), ClusterState::Role::kClientOnly);
    QVERIFY(state.IsUnwatchedServer(unwatched));
    QVERIFY(!state.IsUnwatchedServer(std::string("10.0.0.1:7000")));  // backend-1's.
    const QStringList with_unwatched = {"10.0.0.9:7000", "node 0"};
    QCOMPARE(matrix_servers(), with_unwatched);
    QCOMPARE(flow_servers(), with_unwatched);

    // A node answers at that address: it is that server, watched, in both.
    state.AddNode("10.0.0.9:7001", "backend-9");
    frame({{0, server("backend-1", "10.0.0.1:7000")},
           {1, client_telemetry},
           {2, server("backend-9", unwatched)}});
    QVERIFY(!state.IsUnwatchedServer(unwatched));
    QCOMPARE(state.NodeAtAddress(unwatched), 2);
    QCOMPARE(matrix_servers(), QStringList({"node 0", "node 2"}));
    QCOMPARE(flow_servers(), QStringList({"node 0", "node 2"}));

    // Removed, nobody watches it again.
    state.RemoveNode(2);
    frame({{0, server("backend-1", "10.0.0.1:7000")}, {1, client_telemetry}});
    QVERIFY(state.IsUnwatchedServer(unwatched));
    QCOMPARE(matrix_servers(), with_unwatched);
    QCOMPARE(flow_servers(), with_unwatched);

    // The client's node goes: what its pools said is no longer known, in either.
    frame({{0, server("backend-1", "10.0.0.1:7000")}, {1, nullptr, "connection refused"}});
    QVERIFY(!state.IsUnwatchedServer(unwatched));
    QCOMPARE(state.RoleOf(1), ClusterState::Role::kClientOnly);  // Kept while it is down.
    QCOMPARE(matrix_servers(), QStringList({"node 0"}));
    QCOMPARE(flow_servers(), QStringList({"node 0"}));
  }

  void aServerOnlyAPoolNamesGetsAColumn() {
    ClusterState state;
    Window window(&state);
    SlotMatrixModel& model = *window.view.Model();
    const auto tester = Tester(&model);
    const quint64 id = 0x77;
    state.AddNode("10.0.0.1:7001", "backend-1");
    state.AddNode("10.0.1.1:7001", "loadgen");
    const QString unwatched = "10.0.0.9:7000";
    auto server = [id](const std::string& name, const std::string& address,
                       std::vector<uint32_t> slots) {
      Telemetry t;
      t.set_node(name);
      t.set_role(railyard::admin::ROLE_SERVER);
      t.set_state(railyard::admin::NODE_SERVING);
      t.set_service_address(address);
      for (uint32_t slot : slots) {
        railyard::admin::SlotEntry* e = t.add_slots();
        e->set_slot(slot);
        e->set_client_id(id);
        e->set_client_name("loadgen");
        e->set_busy(slot == 1);
      }
      return std::make_shared<const Telemetry>(t);
    };
    // The client holds slot 0 on backend-1 (watched) and slots 1 and 3 on 10.0.0.9:7000.
    Telemetry client = ClientProcess("loadgen", id, 1'750'000'000'000, 0, 0, 0);
    railyard::admin::ClientPool* pool = client.mutable_pools(0);
    for (const auto& [address, slot] : std::vector<std::pair<std::string, uint32_t>>{
             {"10.0.0.1:7000", 0}, {unwatched.toStdString(), 1}, {unwatched.toStdString(), 3}}) {
      railyard::admin::PoolEntry* e = pool->add_entries();
      e->set_server(address);
      e->set_slot(slot);
      e->set_busy(slot == 1);
      e->set_requests(10 + slot);
    }
    state.ApplyFrame({{0, server("backend-1", "10.0.0.1:7000", {0})},
                      {1, std::make_shared<const Telemetry>(client)}},
                     1'750'000'000'000);
    QCOMPARE(model.columnCount(), SlotMatrixModel::kFirstServerColumn + 2);
    // Before backend-1 in natural order ("10..." before "b...").
    const int column = SlotMatrixModel::kFirstServerColumn;
    QCOMPARE(model.ColumnOfServer(0), column + 1);
    const int s = model.ServerOfColumn(column);
    QVERIFY(s >= 0 && !model.IsWatched(s));
    QCOMPARE(model.headerData(column, Qt::Horizontal).toString(), unwatched + "\nnot watched");
    QCOMPARE(model.ServerMark(s), QString("not watched"));
    const int row = model.RowOfClient(id);
    QVERIFY(row >= 0);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.index(row, column).data().toString(), QString("1 3"));
    QVERIFY(model.index(row, column).data(Qt::ToolTipRole).toString().contains("not watched"));
    QCOMPARE(model.Totals(s).in_use, 2);
    QCOMPARE(model.Totals(s).busy, 1);
    // The watched server's slot is counted from its slot table, once.
    QCOMPARE(model.index(row, model.ColumnOfServer(0)).data().toString(), QString("0"));
    QCOMPARE(model.client(row).connections, 3);
    // The side panel lists the unwatched server by its address.
    window.view.SelectClient(row);
    QStringList servers;
    const QAbstractItemModel* detail = window.view.Detail()->model();
    for (int r = 0; r < detail->rowCount(); ++r) {
      servers << detail->index(r, ClientDetailModel::kServer).data().toString();
    }
    QCOMPARE(servers, QStringList({"backend-1", unwatched, unwatched}));
    window.view.Matrix()->scrollTo(model.index(row, column));
    SaveScreenshot(&window.view, "slot_matrix_not_watched.png");

    // A node at that address answers: its column replaces the unwatched one.
    state.AddNode("10.0.0.9:7001", "backend-9");
    state.ApplyFrame({{0, server("backend-1", "10.0.0.1:7000", {0})},
                      {1, std::make_shared<const Telemetry>(client)},
                      {2, server("backend-9", unwatched.toStdString(), {1, 3})}},
                     1'750'000'001'000);
    QCOMPARE(model.columnCount(), SlotMatrixModel::kFirstServerColumn + 2);
    QCOMPARE(model.ColumnOfServer(0), column);
    QCOMPARE(model.ColumnOfServer(2), column + 1);
    QCOMPARE(model.headerData(column + 1, Qt::Horizontal).toString(), QString("backend-9"));
    QCOMPARE(model.index(row, column + 1).data().toString(), QString("1 3"));
    QCOMPARE(model.client(row).connections, 3);
  }
};

RAILYARD_QTEST_MAIN(SlotMatrixTest)
#include "tst_slot_matrix.moc"
