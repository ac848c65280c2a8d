// SPDX-License-Identifier: Apache-2.0
// The overview and slot-matrix models against generated telemetry (every expected value
// recomputed from the generator) and against a recording of a real cluster (tests/data).
#include <QAbstractItemModelTester>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <set>

#include "core/trace/recording_reader.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"
#include "tests/ui/console_fixture.h"
#include "tests/ui/ui_test_support.h"
#include "ui/models/cluster_state.h"
#include "ui/models/natural_order.h"
#include "ui/models/overview_model.h"
#include "ui/models/palette.h"
#include "ui/models/slot_matrix_client_detail.h"
#include "ui/models/slot_matrix_model.h"

using railyard::testing::SourcePath;
using railyard::ui::testing::ApplyGenerated;

using railyard::ui::ClientDetailModel;
using railyard::ui::ClusterState;
using railyard::ui::NodeHealth;
using railyard::ui::OverviewFilterModel;
using railyard::ui::OverviewModel;
using railyard::ui::SlotMatrixModel;
using railyard::ui::testing::GeneratedCluster;

namespace {

// Checks `model`'s invariants now and after every change while the test runs.
std::unique_ptr<QAbstractItemModelTester> Tester(QAbstractItemModel* model) {
  return std::make_unique<QAbstractItemModelTester>(
      model, QAbstractItemModelTester::FailureReportingMode::QtTest);
}

QString DataFile(QTemporaryDir& dir) {
  // A copy: readers may leave -wal/-shm files beside a recording, never in the source tree.
  const QString copy = dir.filePath("console_small.rec");
  QFile::copy(QString(SourcePath("tests/data/console_small.rec")), copy);
  return copy;
}

}  // namespace

class ClusterModelsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // One topology per frame, which the slot matrix and the flow both read: a node is known by the
  // address it was added with until it answers, then by its name and its service address; an
  // address no node has is a server nobody watches; Remove node renumbers the rest.
  void theTopologyNamesEachNodesAddresses() {
    ClusterState state;
    const int a = state.AddNode("10.0.0.1:7001");
    const int b = state.AddNode("10.0.0.2:7001", "backend-b");
    QCOMPARE(state.NodeAtAddress(std::string("10.0.0.1:7001")), a);
    QCOMPARE(state.NodeAtAddress(QString("backend-b")), b);
    QCOMPARE(state.NodeAtAddress(std::string("10.0.0.9:7000")), -1);
    auto t = std::make_shared<railyard::admin::Telemetry>();
    t->set_node("backend-a");
    t->set_service_address("10.0.0.1:7000");
    state.ApplyFrame({{a, t}}, 1000);
    QCOMPARE(state.NodeAtAddress(std::string("backend-a")), a);
    QCOMPARE(state.NodeAtAddress(std::string("10.0.0.1:7000")), a);
    QCOMPARE(state.NodeAtAddress(std::string("10.0.0.1:7001")), -1);  // Named now.
    state.RemoveNode(a);
    QCOMPARE(state.NodeAtAddress(std::string("10.0.0.1:7000")), -1);
    QCOMPARE(state.NodeAtAddress(QString("backend-b")), 0);
  }

  void overviewShowsEachNodesFigures() {
    GeneratedCluster g;
    g.nodes = 100;
    g.clients = 200;
    ClusterState state;
    OverviewModel model(&state);
    const auto model_tester = Tester(&model);
    ApplyGenerated(&state, g, 0);
    QCOMPARE(model.rowCount(), 100);
    QCOMPARE(model.columnCount(), int(OverviewModel::kColumnCount));
    for (int n : {0, 7, 42, 99}) {
      const railyard::admin::Telemetry t = g.Telemetry(n, 0);
      QCOMPARE(model.index(n, OverviewModel::kName).data().toString(),
               QString::fromStdString(g.NodeName(n)));
      QCOMPARE(model.index(n, OverviewModel::kState).data().toString(), QString("serving"));
      QCOMPARE(model.index(n, OverviewModel::kRole).data().toString(), QString("server+client"));
      QCOMPARE(model.index(n, OverviewModel::kRequests).data(OverviewModel::kSortRole).toDouble(),
               t.throughput().requests_per_s());
      QCOMPARE(model.index(n, OverviewModel::kSlots).data().toInt(), t.slots_size());
      QCOMPARE(model.index(n, OverviewModel::kIndexes).data().toInt(), t.storage().indexes_size());
      QCOMPARE(model.index(n, OverviewModel::kP99).data(OverviewModel::kSortRole).toDouble(),
               (800.0 + 10 * (n % 50)) / 1000.0);
      const double bloom =
          double(t.storage().bloom_resident_bytes()) / double(t.storage().bloom_budget_bytes());
      QCOMPARE(model.index(n, OverviewModel::kBloom).data(OverviewModel::kSortRole).toDouble(),
               bloom);
    }
    // Every slot of every server appears once: 200 clients x 8 connections.
    int slots = 0;
    for (int n = 0; n < 100; ++n) slots += model.index(n, OverviewModel::kSlots).data().toInt();
    QCOMPARE(slots, 200 * 8);
  }

  void overviewSignalsOnlyTheRowsThatChanged() {
    GeneratedCluster g;
    g.nodes = 100;
    g.clients = 50;
    ClusterState state;
    OverviewModel model(&state);
    const auto model_tester = Tester(&model);
    ApplyGenerated(&state, g, 0);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    ApplyGenerated(&state, g, 1, {}, {5, 6, 40});
    QVERIFY(!changed.isEmpty());
    std::set<int> rows;
    for (const QList<QVariant>& args : changed) {
      const QModelIndex top = args.at(0).toModelIndex(), bottom = args.at(1).toModelIndex();
      for (int r = top.row(); r <= bottom.row(); ++r) rows.insert(r);
    }
    QCOMPARE(rows, (std::set<int>{5, 6, 40}));
    // Per column whose text moved: 5..6 coalesced, then 40.
    for (const QList<QVariant>& args : changed) {
      const QModelIndex top = args.at(0).toModelIndex(), bottom = args.at(1).toModelIndex();
      QVERIFY((top.row() == 5 && bottom.row() == 6) || (top.row() == 40 && bottom.row() == 40));
    }
    QVERIFY(changed.count() <= 2 * OverviewModel::kColumnCount);
  }

  void overviewSortsAndFiltersByNameAndState() {
    GeneratedCluster g;
    g.nodes = 100;
    g.clients = 20;
    ClusterState state;
    OverviewModel model(&state);
    const auto model_tester = Tester(&model);
    OverviewFilterModel filter;
    filter.setSourceModel(&model);
    const auto filter_tester = Tester(&filter);
    ApplyGenerated(&state, g, 3, {1, 17});
    filter.sort(OverviewModel::kRequests, Qt::DescendingOrder);
    double previous = 1e18;
    for (int r = 0; r < filter.rowCount(); ++r) {
      const double rate =
          filter.index(r, OverviewModel::kRequests).data(OverviewModel::kSortRole).toDouble();
      QVERIFY(rate <= previous);
      previous = rate;
    }
    filter.SetNameFilter("N01");  // Case-insensitive: n010 .. n019.
    QCOMPARE(filter.rowCount(), 10);
    filter.SetNameFilter({});
    filter.SetHealthFilter(int(NodeHealth::kLameDuck));
    QCOMPARE(filter.rowCount(), 2);
    filter.SetNameFilter("n017");
    QCOMPARE(filter.rowCount(), 1);
    QCOMPARE(filter.index(0, OverviewModel::kState).data().toString(), QString("lame duck"));
    filter.SetHealthFilter(-1);
    filter.SetNameFilter({});
    QCOMPARE(filter.rowCount(), 100);
  }

  void namesSortNaturally() {
    using railyard::ui::NaturalLess;
    QVERIFY(NaturalLess("backend-2", "backend-10"));
    QVERIFY(!NaturalLess("backend-10", "backend-2"));
    QVERIFY(NaturalLess("Backend-3", "backend-10"));                // Case does not come first.
    QVERIFY(NaturalLess("n1", "n01") != NaturalLess("n01", "n1"));  // Total, even on ties.
    QVERIFY(NaturalLess("a9b", "a10"));
  }

  void overviewSortsNamesNaturally() {
    ClusterState state;
    OverviewModel model(&state);
    OverviewFilterModel filter;
    filter.setSourceModel(&model);
    const auto filter_tester = Tester(&filter);
    for (const char* name : {"backend-10", "backend-2", "Backend-3", "backend-1", "backend-19"}) {
      state.AddNode(QStringLiteral("10.0.0.%1:7001").arg(state.NodeCount()), name);
    }
    filter.sort(OverviewModel::kName, Qt::AscendingOrder);
    QStringList names;
    for (int r = 0; r < filter.rowCount(); ++r) {
      names << filter.index(r, OverviewModel::kName).data().toString();
    }
    QCOMPARE(names,
             QStringList({"backend-1", "backend-2", "Backend-3", "backend-10", "backend-19"}));
  }

  void overviewAgeFollowsTheClusterClock() {
    GeneratedCluster g;
    g.nodes = 2;
    g.clients = 2;
    ClusterState state;
    OverviewModel model(&state);
    const auto model_tester = Tester(&model);
    ApplyGenerated(&state, g, 0, {}, {0});
    QCOMPARE(model.index(1, OverviewModel::kAge).data().toString(), QString("never"));
    QCOMPARE(model.index(0, OverviewModel::kAge).data().toString(), QString("< 1 s"));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    state.Tick(g.TimeOf(0) + 3500);
    QCOMPARE(model.index(0, OverviewModel::kAge).data().toString(), QString("3 s"));
    QCOMPARE(changed.count(), 1);  // The age cell of row 0, nothing else.
    QCOMPARE(changed.at(0).at(0).toModelIndex().column(), int(OverviewModel::kAge));
  }

  void slotMatrixListsEachClientsSlotsPerServer() {
    GeneratedCluster g;
    g.nodes = 20;
    g.clients = 40;
    g.pool_size = 6;
    ClusterState state;
    SlotMatrixModel model(&state);
    const auto model_tester = Tester(&model);
    ApplyGenerated(&state, g, 0);
    QCOMPARE(model.rowCount(), 40);
    QCOMPARE(model.columnCount(), SlotMatrixModel::kFirstServerColumn + 20);
    for (int c = 0; c < g.clients; ++c) {
      const int row = model.RowOfClient(GeneratedCluster::ClientId(c));
      QVERIFY(row >= 0);
      QCOMPARE(model.headerData(row, Qt::Vertical).toString(),
               QString::fromStdString(GeneratedCluster::ClientName(c)));
      QCOMPARE(model.index(row, SlotMatrixModel::kPoolColumn).data().toInt(), 6);
      int busy = 0;
      for (int s : g.ServersOf(c, 0)) busy += (c + 0 + s) % 3 == 0 ? 1 : 0;
      QCOMPARE(model.index(row, SlotMatrixModel::kBusyColumn).data().toInt(), busy);
      for (int s = 0; s < g.nodes; ++s) {
        QVariantList expected;
        for (uint32_t slot : g.SlotsOf(c, s, 0)) expected.push_back(slot);
        const QModelIndex cell = model.index(row, SlotMatrixModel::kFirstServerColumn + s);
        QCOMPARE(cell.data(SlotMatrixModel::kSlotsRole).toList(), expected);
        QVERIFY(!cell.data(SlotMatrixModel::kHighlightedRole).toBool());  // First fill.
      }
    }
  }

  void slotMatrixListsClientsInNaturalOrder() {
    GeneratedCluster g;
    g.nodes = 1;
    g.clients = 12;
    g.pool_size = 1;
    ClusterState state;
    SlotMatrixModel model(&state);
    const auto model_tester = Tester(&model);
    state.AddNode("10.0.0.0:7001", "n000");
    // Unpadded names, seen highest first: client-11, client-10, ..., client-0.
    railyard::admin::Telemetry t = g.Telemetry(0, 0);
    auto rename = [](quint64 id) { return "client-" + std::to_string(id - 0x1000); };
    std::reverse(t.mutable_slots()->begin(), t.mutable_slots()->end());
    for (auto& e : *t.mutable_slots()) e.set_client_name(rename(e.client_id()));
    std::reverse(t.mutable_pools()->begin(), t.mutable_pools()->end());
    for (auto& p : *t.mutable_pools()) p.set_client_name(rename(p.client_id()));
    state.ApplyFrame({{0, std::make_shared<const railyard::admin::Telemetry>(t)}}, g.TimeOf(0));
    QCOMPARE(model.rowCount(), 12);
    for (int c = 0; c < g.clients; ++c) {
      QCOMPARE(model.headerData(c, Qt::Vertical).toString(), QString("client-%1").arg(c));
      QCOMPARE(model.RowOfClient(GeneratedCluster::ClientId(c)), c);
      QVariantList expected;
      for (uint32_t slot : g.SlotsOf(c, 0, 0)) expected.push_back(slot);
      QCOMPARE(model.index(c, SlotMatrixModel::kFirstServerColumn)
                   .data(SlotMatrixModel::kSlotsRole)
                   .toList(),
               expected);
    }
  }

  void slotMatrixListsServersInNaturalOrder() {
    GeneratedCluster g;
    g.nodes = 3;
    g.clients = 6;
    g.pool_size = 2;
    ClusterState state;
    SlotMatrixModel model(&state);
    const auto model_tester = Tester(&model);
    QStringList names = {"backend-10", "backend-2", "backend-1"};
    for (int n = 0; n < g.nodes; ++n) state.AddNode(QString("10.0.0.%1:7001").arg(n), names[n]);
    auto apply = [&](int frame) {
      std::vector<ClusterState::Update> updates;
      for (int n = 0; n < g.nodes; ++n) {
        railyard::admin::Telemetry t = g.Telemetry(n, frame);
        t.set_node(names[n].toStdString());
        updates.push_back({n, std::make_shared<const railyard::admin::Telemetry>(t)});
      }
      state.ApplyFrame(updates, g.TimeOf(frame));
    };
    apply(0);
    auto headers = [&] {
      QStringList shown;
      for (int c = SlotMatrixModel::kFirstServerColumn; c < model.columnCount(); ++c) {
        shown << model.headerData(c, Qt::Horizontal).toString();
      }
      return shown;
    };
    QCOMPARE(headers(), QStringList({"backend-1", "backend-2", "backend-10"}));
    auto check_cells = [&](int frame) {
      for (int c = 0; c < g.clients; ++c) {
        const int row = model.RowOfClient(GeneratedCluster::ClientId(c));
        for (int s = 0; s < g.nodes; ++s) {
          QVariantList expected;
          for (uint32_t slot : g.SlotsOf(c, s, frame)) expected.push_back(slot);
          QCOMPARE(
              model.index(row, model.ColumnOfServer(s)).data(SlotMatrixModel::kSlotsRole).toList(),
              expected);
          QCOMPARE(model.ServerOfColumn(model.ColumnOfServer(s)), s);
        }
      }
    };
    check_cells(0);
    // Node 0 renames itself: its column moves to the front, and a view's index on it follows.
    const QPersistentModelIndex held(model.index(0, model.ColumnOfServer(0)));
    names[0] = "backend-0";
    apply(1);
    QCOMPARE(headers(), QStringList({"backend-0", "backend-1", "backend-2"}));
    QCOMPARE(model.ColumnOfServer(0), int(SlotMatrixModel::kFirstServerColumn));
    QCOMPARE(held.column(), int(SlotMatrixModel::kFirstServerColumn));
    check_cells(1);
  }

  void slotMatrixColoursCellsByTheClientsRank() {
    GeneratedCluster g;
    g.nodes = 10;
    g.clients = 12;
    g.pool_size = 4;
    ClusterState state;
    SlotMatrixModel model(&state);
    const auto model_tester = Tester(&model);
    ApplyGenerated(&state, g, 0);
    int ranked_apart = 0;  // Clients whose worst slot differs from their best.
    for (int c = 0; c < g.clients; ++c) {
      const int row = model.RowOfClient(GeneratedCluster::ClientId(c));
      QVERIFY(row >= 0);
      std::vector<std::pair<uint32_t, int>> held;  // (slot, server)
      for (int s : g.ServersOf(c, 0)) held.push_back({g.SlotsOf(c, s, 0).at(0), s});
      std::sort(held.begin(), held.end());
      // The lowest slot is the brightest colour: rank 0.
      const QModelIndex best =
          model.index(row, SlotMatrixModel::kFirstServerColumn + held[0].second);
      QCOMPARE(best.data(Qt::BackgroundRole).value<QColor>(), railyard::ui::RankColor(0, 4));
      const QModelIndex worst =
          model.index(row, SlotMatrixModel::kFirstServerColumn + held.back().second);
      if (held.back().first != held[0].first) {
        QVERIFY(worst.data(Qt::BackgroundRole).value<QColor>() != railyard::ui::RankColor(0, 4));
        ++ranked_apart;
      }
    }
    QVERIFY(ranked_apart > 0);  // Else the comparison above never ran.
  }

  void slotMatrixHighlightsSwapsAndLostServersThenFades() {
    GeneratedCluster g;
    g.nodes = 10;
    g.clients = 12;
    g.pool_size = 4;
    g.frames_per_swap = 5;
    ClusterState state;
    SlotMatrixModel model(&state);
    const auto model_tester = Tester(&model);
    ApplyGenerated(&state, g, 0);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    ApplyGenerated(&state, g, 5);  // Client 0 moved its first connection.
    // A few signals per frame (the figures' box, moved rows and cells), each moved cell in one.
    QVERIFY(changed.count() >= 1 && changed.count() <= 100);
    auto signalled = [&changed](const QModelIndex& cell) {
      for (const QList<QVariant>& signal : changed) {
        const auto top_left = signal[0].value<QModelIndex>();
        const auto bottom_right = signal[1].value<QModelIndex>();
        if (cell.row() >= top_left.row() && cell.row() <= bottom_right.row() &&
            cell.column() >= top_left.column() && cell.column() <= bottom_right.column()) {
          return true;
        }
      }
      return false;
    };
    int highlighted = 0;
    for (int c = 0; c < g.clients; ++c) {
      const int row = model.RowOfClient(GeneratedCluster::ClientId(c));
      for (int s = 0; s < g.nodes; ++s) {
        const bool moved = g.SlotsOf(c, s, 0) != g.SlotsOf(c, s, 5);
        const QModelIndex cell = model.index(row, SlotMatrixModel::kFirstServerColumn + s);
        QCOMPARE(cell.data(SlotMatrixModel::kHighlightedRole).toBool(), moved);
        highlighted += moved ? 1 : 0;
        if (moved) {
          QVERIFY(signalled(cell));
          QCOMPARE(cell.data(Qt::BackgroundRole).value<QColor>().isValid(), true);
        }
      }
    }
    QVERIFY(highlighted >= 2);  // Left one server, joined another.
    // 2 s of cluster time later the highlight is gone.
    state.Tick(g.TimeOf(5) + SlotMatrixModel::kHighlightMs);
    for (int r = 0; r < model.rowCount(); ++r) {
      for (int s = 0; s < g.nodes; ++s) {
        QVERIFY(!model.index(r, SlotMatrixModel::kFirstServerColumn + s)
                     .data(SlotMatrixModel::kHighlightedRole)
                     .toBool());
      }
    }
    // A lost server: its column empties, highlighted.
    const int lost = 3;
    state.ApplyFrame({{lost, nullptr, "UNAVAILABLE"}}, g.TimeOf(5) + 2500);
    for (int c = 0; c < g.clients; ++c) {
      const int row = model.RowOfClient(GeneratedCluster::ClientId(c));
      const QModelIndex cell = model.index(row, SlotMatrixModel::kFirstServerColumn + lost);
      QVERIFY(cell.data(SlotMatrixModel::kSlotsRole).toList().isEmpty());
      QCOMPARE(cell.data(SlotMatrixModel::kHighlightedRole).toBool(),
               !g.SlotsOf(c, lost, 5).empty());
    }
  }

  void clientDetailListsConnectionsBestFirst() {
    GeneratedCluster g;
    g.nodes = 10;
    g.clients = 12;
    g.pool_size = 4;
    ClusterState state;
    SlotMatrixModel matrix(&state);
    const auto matrix_tester = Tester(&matrix);
    ClientDetailModel detail(&matrix, &state);
    const auto detail_tester = Tester(&detail);
    ApplyGenerated(&state, g, 0);
    detail.SetClientId(GeneratedCluster::ClientId(11));
    QCOMPARE(detail.rowCount(), 4);
    uint32_t previous = 0;
    for (int r = 0; r < detail.rowCount(); ++r) {
      const uint32_t slot = detail.index(r, ClientDetailModel::kSlot).data().toUInt();
      QVERIFY(r == 0 || slot >= previous);
      previous = slot;
      const QString server = detail.index(r, ClientDetailModel::kServer).data().toString();
      const int s = state.IndexOfName(server);
      QVERIFY(s >= 0);
      QCOMPARE(g.SlotsOf(11, s, 0), std::vector<uint32_t>{slot});
    }
    detail.SetClientId(0);
    QCOMPARE(detail.rowCount(), 0);
  }

  void modelsMatchARecordingOfARealCluster() {
    // Expected values come from the recording through RecordingReader, independently of the
    // models; the models see it through ClusterState like any source feeds it.
    QTemporaryDir dir;
    const QString path = DataFile(dir);
    std::unique_ptr<railyard::trace::RecordingReader> reader;
    QVERIFY(railyard::trace::RecordingReader::Open(path.toStdString(), &reader).ok());
    railyard::trace::TimeSpan span;
    QVERIFY(reader->Span(&span).ok());
    std::vector<railyard::trace::Event> events;
    QVERIFY(reader->Events(&events).ok());
    QVERIFY(!events.empty());
    for (int64_t at : {span.first_unix_ms + 60, events.front().unix_ms + 150, span.last_unix_ms}) {
      std::vector<railyard::trace::Snapshot> snapshots;
      QVERIFY(reader->Seek(at, &snapshots).ok());
      QCOMPARE(snapshots.size(), size_t{3});
      ClusterState state;
      OverviewModel overview(&state);
      const auto overview_tester = Tester(&overview);
      SlotMatrixModel matrix(&state);
      const auto matrix_tester = Tester(&matrix);
      std::vector<ClusterState::Update> updates;
      for (const auto& s : snapshots) {
        const int index = state.AddNode(QString::fromStdString(s.telemetry.admin_address()));
        updates.push_back({index,
                           std::make_shared<const railyard::admin::Telemetry>(s.telemetry),
                           {},
                           s.unix_ms});
      }
      state.ApplyFrame(updates, at);
      for (size_t i = 0; i < snapshots.size(); ++i) {
        const railyard::admin::Telemetry& t = snapshots[i].telemetry;
        const int row = int(i);
        QCOMPARE(overview.index(row, OverviewModel::kName).data().toString(),
                 QString::fromStdString(t.node()));
        QCOMPARE(overview.index(row, OverviewModel::kSlots).data().toInt(), t.slots_size());
        QCOMPARE(overview.index(row, OverviewModel::kState).data().toString(),
                 QString(t.state() == railyard::admin::NODE_LAME_DUCK ? "lame duck" : "serving"));
        for (const auto& slot : t.slots()) {
          const int client = matrix.RowOfClient(slot.client_id());
          QVERIFY(client >= 0);
          const QVariantList slots = matrix.index(client, SlotMatrixModel::kFirstServerColumn + row)
                                         .data(SlotMatrixModel::kSlotsRole)
                                         .toList();
          QVERIFY(slots.contains(QVariant(slot.slot())));
        }
      }
      if (at == events.front().unix_ms + 150) {
        // The first event is node1's drain: it shows as lame duck right after.
        QCOMPARE(events.front().kind, std::string("drain"));
        const int node1 = state.IndexOfName("node1");
        QCOMPARE(state.Node(node1).health, NodeHealth::kLameDuck);
      }
    }
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ClusterModelsTest)
#include "tst_cluster_models.moc"
