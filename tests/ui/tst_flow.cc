// SPDX-License-Identifier: Apache-2.0
// The request-flow model and view: edge rates against the request counters of generated
// telemetry (pools and slot tables), a drained server's edges fading while the others rise,
// lowest-slot and error colouring, a replay seek that rebuilds the same picture, a screenshot of
// 5 clients x 4 servers with one drained, a simulated rolling restart replayed, and real nodes
// with a real Boxcar client, one drained.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QScrollArea>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/load/load_generator.h"
#include "core/node/node.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"
#include "tests/ui/console_fixture.h"
#include "tests/ui/screenshot.h"
#include "tests/ui/ui_test_support.h"
#include "ui/models/cluster_state.h"
#include "ui/models/flow_model.h"
#include "ui/shell/view_export.h"
#include "ui/sources/live_source.h"
#include "ui/sources/replay_source.h"
#include "ui/views/flow_legend.h"
#include "ui/views/flow_view.h"
#include "ui/views/sprite_cache.h"

using railyard::testing::BuiltProgram;
using railyard::testing::SourcePath;

using railyard::admin::Telemetry;
using railyard::ui::ClusterState;
using railyard::ui::FlowLegend;
using railyard::ui::FlowModel;
using railyard::ui::FlowView;
using railyard::ui::NodeHealth;

using railyard::ui::testing::SaveScreenshot;
namespace {

constexpr int kFrameMs = 100;
constexpr qint64 kStart = 1'760'000'000'000;

// A small Boxcar cluster the test drives by hand: servers backend-1..N (role server) and clients
// client-1..M whose pools a "loadgen" node reports (when watched). Client c holds slot
// Slot(c, s) on server s (each server's slots a rotation of the clients); the test says how many
// requests each connection serves per frame and keeps the running counters, so it knows every rate
// the model must show.
struct HandCluster {
  int servers = 4;
  int clients = 5;
  bool watched = true;
  // Connections each client holds to each server. Past 2 an edge's arrays live on the heap, which
  // is what moving edges around (forgetting one in the middle) must handle.
  int conns = 1;
  std::set<int> drained;  // Servers (1-based) in lame duck, holding nothing.
  std::set<int> silent;   // Servers (1-based) serving on, whose polls fail (cut from the console).
  std::map<std::pair<int, int>, quint64> requests;  // (client, server) -> counter.
  int frame = 0;

  static QString Server(int s) { return QString("backend-%1").arg(s); }
  static QString Client(int c) { return QString("client-%1").arg(c); }
  static std::string Address(int s) { return "10.9.0." + std::to_string(s) + ":7000"; }
  static quint64 Id(int c) { return 0x5000 + quint64(c); }
  // Connection k of client c on server s; all of a server's slots are distinct.
  quint32 Slot(int c, int s, int k = 0) const {
    return quint32((c - 1 + s - 1) % clients + k * clients);
  }
  // The first connection carries every request; the others idle.
  quint64 Requests(int c, int s, int k) const {
    return k == 0 && requests.count({c, s}) ? requests.at({c, s}) : 0;
  }
  int Nodes() const { return servers + (watched ? 1 : 0); }

  void Declare(ClusterState* state) const {
    for (int s = 1; s <= servers; ++s) state->AddNode(QString("10.9.0.%1:7001").arg(s), Server(s));
    if (watched) state->AddNode("10.9.1.1:7001", "loadgen");
  }

  Telemetry ServerTelemetry(int s) const {
    Telemetry t;
    t.set_sequence(quint64(frame) + 1);
    t.set_unix_ms(kStart + qint64(frame) * kFrameMs);
    t.set_node(Server(s).toStdString());
    t.set_role(railyard::admin::ROLE_SERVER);
    t.set_state(drained.count(s) ? railyard::admin::NODE_LAME_DUCK : railyard::admin::NODE_SERVING);
    t.set_service_address(Address(s));
    if (drained.count(s)) return t;
    for (int c = 1; c <= clients; ++c) {
      for (int k = 0; k < conns; ++k) {
        auto* e = t.add_slots();
        e->set_slot(Slot(c, s, k));
        e->set_client_id(Id(c));
        e->set_client_name(Client(c).toStdString());
        e->set_requests(Requests(c, s, k));
        e->set_busy(c == 1);
      }
    }
    return t;
  }

  Telemetry ClientTelemetry() const {
    Telemetry t;
    t.set_sequence(quint64(frame) + 1);
    t.set_unix_ms(kStart + qint64(frame) * kFrameMs);
    t.set_node("loadgen");
    t.set_role(railyard::admin::ROLE_CLIENT);
    t.set_state(railyard::admin::NODE_SERVING);
    for (int c = 1; c <= clients; ++c) {
      auto* pool = t.add_pools();
      pool->set_client_id(Id(c));
      pool->set_client_name(Client(c).toStdString());
      pool->set_capacity(quint32(servers * conns));
      for (int s = 1; s <= servers; ++s) {
        if (drained.count(s)) continue;  // Boxcar clients drop a lame duck's connections.
        for (int k = 0; k < conns; ++k) {
          auto* e = pool->add_entries();
          e->set_server_index(quint32(s - 1));
          e->set_server(Address(s));
          e->set_slot(Slot(c, s, k));
          e->set_busy(c == 1);
          e->set_requests(Requests(c, s, k));
        }
      }
    }
    return t;
  }

  // Advances one frame: each live connection serves `per_frame(c, s)` requests.
  template <typename PerFrame>
  void Step(ClusterState* state, PerFrame per_frame) {
    ++frame;
    for (int c = 1; c <= clients; ++c) {
      for (int s = 1; s <= servers; ++s) {
        if (!drained.count(s)) requests[{c, s}] += per_frame(c, s);
      }
    }
    Apply(state);
  }

  void Apply(ClusterState* state) const {
    std::vector<ClusterState::Update> updates;
    for (int s = 1; s <= servers; ++s) {
      if (silent.count(s)) {
        updates.push_back({s - 1, nullptr, "connection timed out"});
      } else {
        updates.push_back({s - 1, std::make_shared<const Telemetry>(ServerTelemetry(s))});
      }
    }
    if (watched) updates.push_back({servers, std::make_shared<const Telemetry>(ClientTelemetry())});
    state->ApplyFrame(updates, kStart + qint64(frame) * kFrameMs);
  }
};

double RateOf(const FlowModel& model, int c, int s) {
  const FlowModel::Edge* e = model.FindEdge(HandCluster::Client(c), HandCluster::Server(s));
  return e && e->rate ? *e->rate : -1;
}

double ServerRate(const FlowModel& model, int s) {
  for (int i : model.ServerOrder()) {
    if (model.Servers()[size_t(i)].name == HandCluster::Server(s)) {
      return model.Servers()[size_t(i)].rate.value_or(-1);
    }
  }
  return -1;
}

// Every drawn edge's rate and slots, keyed by names, to compare two pictures.
std::map<std::pair<QString, QString>, std::pair<double, QVector<quint32>>> Picture(
    const FlowModel& model) {
  std::map<std::pair<QString, QString>, std::pair<double, QVector<quint32>>> out;
  for (const FlowModel::Edge& e : model.Edges()) {
    if (e.rate.value_or(0) <= 0 && e.slots.isEmpty()) continue;
    out[{model.Clients()[size_t(e.client)].name, model.Servers()[size_t(e.server)].name}] = {
        e.rate.value_or(-1), QVector<quint32>(e.slots.begin(), e.slots.end())};
  }
  return out;
}

// The largest difference of any colour channel between two images of the same size, and where.
int LargestDifference(const QImage& a, const QImage& b, QPoint* where = nullptr) {
  int largest = 0;
  for (int y = 0; y < a.height(); ++y) {
    for (int x = 0; x < a.width(); ++x) {
      const QColor p = a.pixelColor(x, y), q = b.pixelColor(x, y);
      const int d = std::max({std::abs(p.red() - q.red()), std::abs(p.green() - q.green()),
                              std::abs(p.blue() - q.blue()), std::abs(p.alpha() - q.alpha())});
      if (d > largest) {
        largest = d;
        if (where) *where = QPoint(x, y);
      }
    }
  }
  return largest;
}

// The flow canvas as painted now, whole (grab paints it afresh).
QImage CanvasImage(const FlowView& view) {
  return view.Canvas()->grab().toImage().convertToFormat(QImage::Format_ARGB32_Premultiplied);
}

}  // namespace

class FlowTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void edgeRatesAreRequestDeltasOverTime_data() {
    QTest::addColumn<bool>("watched");
    QTest::newRow("from the clients' pools") << true;
    QTest::newRow("from the servers' slot tables") << false;
  }

  void edgeRatesAreRequestDeltasOverTime() {
    QFETCH(bool, watched);
    ClusterState state;
    FlowModel model(&state);
    HandCluster cluster;
    cluster.watched = watched;
    cluster.Declare(&state);
    cluster.Apply(&state);  // The baseline: nothing counted yet.
    // Per connection and frame: client c to server s serves c*s requests, doubling from frame 15.
    auto per_frame = [&cluster](int c, int s) {
      return quint64(c * s * (cluster.frame > 15 ? 2 : 1));
    };
    std::map<std::pair<int, int>, std::vector<quint64>> history;  // Counter at each frame.
    for (int c = 1; c <= cluster.clients; ++c) {
      for (int s = 1; s <= cluster.servers; ++s) history[{c, s}].push_back(0);
    }
    for (int f = 1; f <= 40; ++f) {
      cluster.Step(&state, per_frame);
      for (auto& [key, counts] : history) counts.push_back(cluster.requests[key]);
      // Expected: the counter's rise over the last window (or since the baseline) per second.
      const int back = std::min<int>(f, FlowModel::kRateWindowMs / kFrameMs);
      for (const auto& [key, counts] : history) {
        const double expected =
            double(counts[size_t(f)] - counts[size_t(f - back)]) * 1000.0 / (back * kFrameMs);
        const FlowModel::Edge* e =
            model.FindEdge(HandCluster::Client(key.first), HandCluster::Server(key.second));
        QVERIFY(e);
        QCOMPARE(e->from_pool, watched);
        QVERIFY2(e->rate,
                 qPrintable(
                     QString("frame %1 %2->%3: not known").arg(f).arg(key.first).arg(key.second)));
        QVERIFY2(qFuzzyCompare(*e->rate, expected), qPrintable(QString("frame %1 %2->%3: %4 != %5")
                                                                   .arg(f)
                                                                   .arg(key.first)
                                                                   .arg(key.second)
                                                                   .arg(*e->rate)
                                                                   .arg(expected)));
      }
    }
    // 20 frames after the change every edge runs at twice its first rate: c*s*2 per 100 ms.
    QCOMPARE(RateOf(model, 3, 4), 3 * 4 * 2 * 10.0);
    QCOMPARE(ServerRate(model, 2), (1 + 2 + 3 + 4 + 5) * 2 * 2 * 10.0);
    QCOMPARE(model.Clients()[size_t(model.ClientOrder()[0])].watched(), watched);
  }

  void aDrainedServersEdgesFadeWhileOthersRise() {
    ClusterState state;
    FlowModel model(&state);
    HandCluster cluster;
    cluster.conns = 3;  // Edges hold their connections on the heap: forgetting moves them.
    cluster.Declare(&state);
    cluster.Apply(&state);
    // 12 requests per client and frame, spread over the servers it can use.
    auto spread = [&cluster](int, int) {
      return quint64(12 / (cluster.servers - cluster.drained.size()));
    };
    for (int f = 0; f < 25; ++f) cluster.Step(&state, spread);
    for (int c = 1; c <= 5; ++c) {
      for (int s = 1; s <= 4; ++s) QCOMPARE(RateOf(model, c, s), 30.0);
    }
    QCOMPARE(ServerRate(model, 2), 150.0);
    // backend-2 drains: its edges fall to nothing within the window, never rising meanwhile,
    // while each other edge climbs from 30 to 40 requests/s.
    cluster.drained.insert(2);
    double before = RateOf(model, 1, 2);
    for (int f = 0; f < FlowModel::kRateWindowMs / kFrameMs; ++f) {
      cluster.Step(&state, spread);
      const double now = std::max(0.0, RateOf(model, 1, 2));  // -1: faded out and forgotten.
      QVERIFY2(now < before, qPrintable(QString("frame %1: %2 >= %3").arg(f).arg(now).arg(before)));
      QVERIFY(RateOf(model, 1, 3) > 30.0);
      before = now;
    }
    // Faded to nothing, with no connection left: the edge is forgotten; the server stays.
    QVERIFY(!model.FindEdge("client-1", "backend-2"));
    QCOMPARE(ServerRate(model, 2), 0.0);
    for (int c = 1; c <= 5; ++c) {
      for (int s : {1, 3, 4}) QCOMPARE(RateOf(model, c, s), 40.0);
    }
    QCOMPARE(ServerRate(model, 1), 200.0);
    // The edges moved into the forgotten ones' places kept their connections.
    for (int c = 1; c <= 5; ++c) {
      for (int s : {1, 3, 4}) {
        const FlowModel::Edge* e = model.FindEdge(HandCluster::Client(c), HandCluster::Server(s));
        QVERIFY(e);
        QCOMPARE(QVector<quint32>(e->slots.begin(), e->slots.end()),
                 QVector<quint32>(
                     {cluster.Slot(c, s, 0), cluster.Slot(c, s, 1), cluster.Slot(c, s, 2)}));
      }
    }
    const auto& servers = model.Servers();
    const auto drained = std::find_if(servers.begin(), servers.end(),
                                      [](const auto& s) { return s.name == "backend-2"; });
    QVERIFY(drained != servers.end());
    QCOMPARE(drained->health, NodeHealth::kLameDuck);
    QCOMPARE(drained->connections, 0);
    QCOMPARE(model.ServerOrder().size(), 4);
    // The client-only node is no server.
    for (int s : model.ServerOrder()) QVERIFY(servers[size_t(s)].name != "loadgen");
  }

  // docs/figures.md: a rate is read only from a node that answers and whose two reports in a row
  // were read; otherwise it is not known, and shows as such, never as 0.
  void aRateIsNotKnownWhereNoNodeThatAnswersReportsIt() {
    ClusterState state;
    FlowView view(&state);
    view.resize(900, 500);
    const FlowModel& model = *view.Model();
    HandCluster cluster;
    cluster.servers = 2;
    cluster.clients = 2;
    cluster.watched = false;  // The clients are seen in the servers' slot tables only.
    cluster.Declare(&state);
    // A node that never answers.
    state.AddNode("10.9.0.9:7001", "silent");
    // Each connection serves c * s requests a frame, or none (`serving` false: a stopped server).
    auto step = [&](bool serving = true) {
      cluster.Step(&state, [serving](int c, int s) { return serving ? quint64(c * s) : 0; });
      state.ApplyFrame({{2, nullptr, "connection refused"}}, kStart + cluster.frame * kFrameMs);
    };
    auto index = [&model](const QString& name) {
      for (size_t s = 0; s < model.Servers().size(); ++s) {
        if (model.Servers()[s].name == name) return int(s);
      }
      return -1;
    };
    auto server = [&](const QString& name) { return model.Servers().at(size_t(index(name))); };
    cluster.Apply(&state);
    // One report each: nothing to compare it with.
    for (const FlowModel::Edge& e : model.Edges()) QVERIFY(!e.rate);
    QVERIFY(!server("backend-1").rate);
    QVERIFY(!model.MaxEdgeRate());
    QVERIFY2(view.Legend()->Text().contains("thickest \u2014/s"),
             qPrintable(view.Legend()->Text()));
    step();
    QCOMPARE(RateOf(model, 2, 2), 4 * 1000.0 / kFrameMs);
    QCOMPARE(server("backend-2").rate.value_or(-1), (2 + 4) * 1000.0 / kFrameMs);
    QCOMPARE(model.MaxEdgeRate().value_or(-1), 40.0);
    // Never answered: not known, though nothing points at it.
    QVERIFY(!server("silent").rate);
    QVERIFY(server("silent").watched());
    QVERIFY2(model.NodeText(true, index("silent")).contains("requests/s in not known"),
             qPrintable(model.NodeText(true, index("silent"))));
    // backend-1 is cut from the console but serves on: its edges' reporter does not answer.
    cluster.silent = {1};
    step();
    QCOMPARE(state.Node(0).health, NodeHealth::kUnreachable);
    const FlowModel::Edge* cut = model.FindEdge("client-2", "backend-1");
    QVERIFY(cut && !cut->rate && cut->slots.isEmpty());
    QVERIFY2(model.EdgeText(*cut).contains("not known (backend-1 does not answer)") &&
                 model.EdgeText(*cut).contains("connections not known") &&
                 !model.EdgeText(*cut).contains("no connection"),
             qPrintable(model.EdgeText(*cut)));
    QVERIFY(!server("backend-1").rate);
    // Each client sends to backend-1 too: its total is not known either.
    for (const FlowModel::Client& c : model.Clients()) QVERIFY(!c.rate);
    QCOMPARE(server("backend-2").rate.value_or(-1), (2 + 4) * 1000.0 / kFrameMs);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QString tip = view.Canvas()->ToolTipAt(view.Canvas()->ServerPoint(index("backend-1")));
    QVERIFY2(tip.contains("requests/s in not known, connections not known"), qPrintable(tip));
    SaveScreenshot(&view, "flow_rate_not_known.png");
    // The CSV export leaves the rate empty where it is not known, never 0.
    QTemporaryDir csv_dir;
    QString error;
    const QString csv_path = csv_dir.filePath("flow.csv");
    QVERIFY2(railyard::ui::ExportViewCsv(&view, csv_path, &error), qPrintable(error));
    QFile csv(csv_path);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QString csv_text = QString::fromUtf8(csv.readAll());
    QVERIFY2(csv_text.contains("\nclient-2,backend-1,,") &&
                 csv_text.contains("\nclient-2,backend-2,40,"),
             qPrintable(csv_text));
    // Back after one missed poll: the counters rose across it, and the rate spans it.
    cluster.silent.clear();
    step();
    QCOMPARE(RateOf(model, 2, 1), 2 * 1000.0 / kFrameMs);
    // Back after more than the window, having served nothing meanwhile (stopped): its first
    // report has nothing recent to compare with, and the next one's rate is of that report's
    // interval alone, not averaged over the silence.
    cluster.silent = {1};
    for (int f = 0; f < FlowModel::kRateWindowMs / kFrameMs + 2; ++f) step(false);
    cluster.silent.clear();
    step();
    QVERIFY(!model.FindEdge("client-2", "backend-1")->rate);
    QVERIFY2(model.EdgeText(*model.FindEdge("client-2", "backend-1"))
                 .contains("waiting for a second report from backend-1"),
             qPrintable(model.EdgeText(*model.FindEdge("client-2", "backend-1"))));
    step();
    QCOMPARE(RateOf(model, 2, 1), 2 * 1000.0 / kFrameMs);
    QCOMPARE(server("backend-1").rate.value_or(-1), (1 + 2) * 1000.0 / kFrameMs);
    // Where the clients' pools answer, they report what goes to a server cut from the console.
    ClusterState watched_state;
    FlowModel watched_model(&watched_state);
    HandCluster watched;
    watched.servers = 2;
    watched.clients = 2;
    watched.Declare(&watched_state);
    watched.Apply(&watched_state);
    watched.silent = {1};
    watched.Step(&watched_state, [](int c, int s) { return quint64(c * s); });
    watched.Step(&watched_state, [](int c, int s) { return quint64(c * s); });
    const FlowModel::Edge* pooled = watched_model.FindEdge("client-2", "backend-1");
    QVERIFY(pooled && pooled->from_pool);
    QCOMPARE(pooled->rate.value_or(-1), 2 * 1000.0 / kFrameMs);
    QCOMPARE(watched_model.Servers()[0].rate.value_or(-1), (1 + 2) * 1000.0 / kFrameMs);
    QVERIFY2(watched_model.NodeText(true, 0).contains("as the clients' pools report it"),
             qPrintable(watched_model.NodeText(true, 0)));
  }

  // Polling (or a recording) slower than the rate window: each report is compared with the one
  // before it, and the rates stay known.
  void ratesStayKnownWhenPollingIsSlowerThanTheWindow() {
    ClusterState state;
    FlowModel model(&state);
    HandCluster cluster;
    cluster.watched = false;
    cluster.Declare(&state);
    cluster.Apply(&state);
    constexpr int kFramesApart = 30;  // 3 s between reports.
    for (int report = 0; report < 3; ++report) {
      cluster.frame += kFramesApart - 1;
      cluster.Step(&state, [](int c, int s) { return quint64(c * s); });
      QVERIFY(model.FindEdge("client-2", "backend-3"));
      QCOMPARE(RateOf(model, 2, 3), 6 * 1000.0 / (kFramesApart * kFrameMs));
    }
  }

  void serversOnlyPoolsNameAreShownUntilTheyAnswer() {
    ClusterState state;
    FlowModel model(&state);
    HandCluster cluster;
    // Only the client process is watched: the servers are known by the pools' addresses.
    state.AddNode("10.9.1.1:7001", "loadgen");
    auto client_frame = [&] {
      std::vector<ClusterState::Update> updates = {
          {0, std::make_shared<const Telemetry>(cluster.ClientTelemetry())}};
      if (state.NodeCount() > 1) {
        updates.push_back({1, std::make_shared<const Telemetry>(cluster.ServerTelemetry(1))});
      }
      state.ApplyFrame(updates, kStart + qint64(cluster.frame) * kFrameMs);
    };
    client_frame();
    for (int f = 0; f < 25; ++f) {
      ++cluster.frame;
      for (int c = 1; c <= 5; ++c) {
        for (int s = 1; s <= 4; ++s) cluster.requests[{c, s}] += 2;
      }
      client_frame();
    }
    auto names = [&model] {
      QStringList out;
      for (int s : model.ServerOrder()) out << model.Servers()[size_t(s)].name;
      return out;
    };
    QCOMPARE(names(),
             QStringList({"10.9.0.1:7000", "10.9.0.2:7000", "10.9.0.3:7000", "10.9.0.4:7000"}));
    const FlowModel::Edge* e = model.FindEdge("client-2", "10.9.0.3:7000");
    QVERIFY(e && e->from_pool);
    QCOMPARE(e->rate.value_or(-1), 20.0);
    QVERIFY(!model.Servers()[size_t(e->server)].watched());
    // backend-1 is added and answers with its service address: it takes the alias's place.
    state.AddNode("10.9.0.1:7001", "backend-1");
    ++cluster.frame;
    client_frame();
    QCOMPARE(names(),
             QStringList({"10.9.0.2:7000", "10.9.0.3:7000", "10.9.0.4:7000", "backend-1"}));
    QVERIFY(!model.FindEdge("client-1", "10.9.0.1:7000"));
    const FlowModel::Edge* joined = model.FindEdge("client-1", "backend-1");
    QVERIFY(joined && joined->from_pool);
    QCOMPARE(joined->slots.size(), 1);
  }

  void aNodeAddedLaterTakesTheNamePoolsUsed() {
    // As in a simulator's recording: pools name their servers by node name, and a replay adds a
    // node that starts reporting late under that name.
    ClusterState state;
    FlowModel model(&state);
    state.AddNode("sim:clients", "clients");
    Telemetry t;
    t.set_node("clients");
    t.set_role(railyard::admin::ROLE_CLIENT);
    t.set_state(railyard::admin::NODE_SERVING);
    auto* pool = t.add_pools();
    pool->set_client_id(7);
    pool->set_client_name("client-7");
    auto* entry = pool->add_entries();
    entry->set_server("backend-9");
    entry->set_slot(0);
    state.ApplyFrame({{0, std::make_shared<const Telemetry>(t)}}, kStart);
    QCOMPARE(model.ServerOrder().size(), 1);
    QVERIFY(!model.Servers()[size_t(model.ServerOrder()[0])].watched());
    state.AddNode("sim:backend-9", "backend-9");
    state.ApplyFrame({{0, std::make_shared<const Telemetry>(t)}}, kStart + kFrameMs);
    QCOMPARE(model.ServerOrder().size(), 1);
    const FlowModel::Server& server = model.Servers()[size_t(model.ServerOrder()[0])];
    QCOMPARE(server.name, QString("backend-9"));
    QVERIFY(server.watched());
    const FlowModel::Edge* e = model.FindEdge("client-7", "backend-9");
    QVERIFY(e && model.Servers()[size_t(e->server)].watched());
  }

  void lowestSlotsDarkestAndErrorsRed() {
    ClusterState state;
    FlowModel model(&state);
    for (int s = 1; s <= 3; ++s) state.AddNode(QString("a%1").arg(s), HandCluster::Server(s));
    // client-1 holds slot 7 on backend-1, slot 0 on backend-2 and slot 3 on backend-3.
    std::vector<ClusterState::Update> updates;
    const quint32 slots[] = {7, 0, 3};
    for (int s = 1; s <= 3; ++s) {
      Telemetry t;
      t.set_node(HandCluster::Server(s).toStdString());
      t.set_role(railyard::admin::ROLE_SERVER);
      t.set_state(railyard::admin::NODE_SERVING);
      auto* e = t.add_slots();
      e->set_slot(slots[s - 1]);
      e->set_client_id(HandCluster::Id(1));
      e->set_client_name("client-1");
      updates.push_back({s - 1, std::make_shared<const Telemetry>(t)});
    }
    state.ApplyFrame(updates, kStart);
    const FlowModel::Edge* on1 = model.FindEdge("client-1", "backend-1");
    const FlowModel::Edge* on2 = model.FindEdge("client-1", "backend-2");
    const FlowModel::Edge* on3 = model.FindEdge("client-1", "backend-3");
    QVERIFY(on1 && on2 && on3);
    QCOMPARE(on2->rank, 0);
    QCOMPARE(on3->rank, 1);
    QCOMPARE(on1->rank, 2);
    QCOMPARE(on1->ranks, 3);
    const int l2 = FlowModel::EdgeColor(*on2).lightness();
    const int l3 = FlowModel::EdgeColor(*on3).lightness();
    const int l1 = FlowModel::EdgeColor(*on1).lightness();
    QVERIFY2(l2 < l3 && l3 < l1, qPrintable(QString("%1 %2 %3").arg(l2).arg(l3).arg(l1)));
    // Errors, where the policy knows them, turn an edge red whatever its slot.
    FlowModel::Edge failing = *on2;
    failing.error_share = 0.5;
    const QColor red = FlowModel::EdgeColor(failing);
    QVERIFY(red.red() > 2 * red.green());
    QVERIFY(FlowModel::EdgeColor(*on2).green() > FlowModel::EdgeColor(*on2).red());
  }

  void policyErrorsReachTheEdge() {
    ClusterState state;
    FlowModel model(&state);
    HandCluster cluster;
    cluster.Declare(&state);
    cluster.Apply(&state);
    // The same frame, with the client's policy reporting 40% failures towards backend-3.
    Telemetry t = cluster.ClientTelemetry();
    auto* backend = t.mutable_pools(0)->add_policy_backends();
    backend->set_server(HandCluster::Address(3));
    backend->set_success_rate(0.6);
    t.set_unix_ms(t.unix_ms() + kFrameMs);
    state.ApplyFrame({{cluster.servers, std::make_shared<const Telemetry>(t)}}, kStart + kFrameMs);
    const FlowModel::Edge* e = model.FindEdge("client-1", "backend-3");
    QVERIFY(e);
    QVERIFY(qFuzzyCompare(e->error_share, 0.4));
    QCOMPARE(model.FindEdge("client-1", "backend-2")->error_share, -1.0);
    QVERIFY(model.EdgeText(*e).contains("errors 40.0%"));
  }

  // A hidden Flow tab's model signals nothing per frame; shown again, it presents what a model
  // shown all along presents (rates, slots, order), though load changed and a server drained
  // meanwhile.
  void aHiddenFlowCatchesUpWhenShown() {
    ClusterState state;
    FlowModel always(&state), hidden(&state);
    HandCluster cluster;
    cluster.Declare(&state);
    cluster.Apply(&state);
    auto per_frame = [&cluster](int c, int s) {
      return quint64(c * s * (cluster.frame > 30 ? 3 : 1));
    };
    for (int f = 0; f < 10; ++f) cluster.Step(&state, per_frame);
    hidden.SetActive(false);
    QSignalSpy updated(&hidden, &FlowModel::Updated);
    for (int f = 0; f < 60; ++f) {
      if (f == 40) cluster.drained.insert(2);
      cluster.Step(&state, per_frame);
    }
    QCOMPARE(updated.count(), 0);
    hidden.SetActive(true);
    QCOMPARE(updated.count(), 1);
    const auto picture = Picture(always);
    QVERIFY(picture.size() >= 15);
    QCOMPARE(Picture(hidden), picture);
    for (int s = 1; s <= cluster.servers; ++s)
      QCOMPARE(ServerRate(hidden, s), ServerRate(always, s));
    QCOMPARE(RateOf(hidden, 3, 4), 3 * 4 * 3 * 10.0);
    auto names = [](const FlowModel& model, bool servers) {
      QStringList out;
      for (int i : servers ? model.ServerOrder() : model.ClientOrder()) {
        out << (servers ? model.Servers()[size_t(i)].name : model.Clients()[size_t(i)].name);
      }
      return out;
    };
    QCOMPARE(names(hidden, true), names(always, true));
    QCOMPARE(names(hidden, false), names(always, false));
  }

  // The view switches its model off while hidden (another tab shown) and on when shown.
  void theViewPausesItsModelWhileHidden() {
    ClusterState state;
    FlowView view(&state);
    view.show();
    QVERIFY(view.Model()->Active());
    view.hide();
    QVERIFY(!view.Model()->Active());
    view.show();
    QVERIFY(view.Model()->Active());
  }

  void aReplaySeekRebuildsThePicture() {
    QTemporaryDir dir;
    railyard::ui::testing::GeneratedCluster g;
    g.nodes = 4;
    g.clients = 5;
    g.pool_size = 3;
    g.frames_per_swap = 4;
    g.frame_ms = kFrameMs;
    const QString path = dir.filePath("flow.rec");
    QVERIFY(railyard::ui::testing::WriteGeneratedRecording(path.toStdString(), g, 90).ok());
    ClusterState state;
    FlowModel model(&state);
    railyard::ui::ReplaySource replay(&state);
    replay.SetTickIntervalMs(kFrameMs);
    replay.SetSpeed(1.0);
    QString error;
    QVERIFY2(replay.Open(path, &error), qPrintable(error));
    // Played from the start to frame 60, one recorded frame per step.
    while (replay.PositionMs() < g.TimeOf(60)) replay.Step();
    QCOMPARE(replay.PositionMs(), g.TimeOf(60));
    const auto played = Picture(model);
    QVERIFY(played.size() >= 5);
    int running = 0;
    for (const auto& [key, edge] : played) running += edge.first > 0 ? 1 : 0;
    QVERIFY(running >= 5);
    // Elsewhere, then back: the same edges, rates and slots.
    replay.Seek(g.TimeOf(20));
    QVERIFY(Picture(model) != played);
    replay.Seek(g.TimeOf(60));
    const auto sought = Picture(model);
    QCOMPARE(sought.size(), played.size());
    for (const auto& [key, edge] : played) {
      const auto it = sought.find(key);
      QVERIFY2(it != sought.end(), qPrintable(key.first + " -> " + key.second));
      QVERIFY2(qFuzzyCompare(1 + it->second.first, 1 + edge.first),
               qPrintable(QString("%1 -> %2: %3 != %4")
                              .arg(key.first, key.second)
                              .arg(it->second.first)
                              .arg(edge.first)));
      QCOMPARE(it->second.second, edge.second);
    }
  }

  void viewDrawsFiveClientsOnFourServersOneDrained() {
    ClusterState state;
    FlowView view(&state);
    view.resize(1000, 560);
    HandCluster cluster;
    cluster.Declare(&state);
    cluster.Apply(&state);
    // Lowest slots carry the most: (5 - slot) * 2 requests per connection and frame, spread
    // over the servers left.
    auto lowest_first = [&cluster](int c, int s) {
      return quint64((5 - int(cluster.Slot(c, s))) * 2 * 4 /
                     (cluster.servers - int(cluster.drained.size())));
    };
    for (int f = 0; f < 25; ++f) cluster.Step(&state, lowest_first);
    cluster.drained.insert(2);
    for (int f = 0; f < 8; ++f) cluster.Step(&state, lowest_first);  // Part way through the fade.
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    FlowModel* model = view.Model();
    QCOMPARE(model->ServerOrder().size(), 4);
    QCOMPARE(model->ClientOrder().size(), 5);
    // Columns in natural order, servers right of clients, a fading edge to backend-2 still drawn.
    const railyard::ui::FlowCanvas* canvas = view.Canvas();
    for (int k = 1; k < 4; ++k) {
      QVERIFY(canvas->ServerPoint(model->ServerOrder()[k]).y() >
              canvas->ServerPoint(model->ServerOrder()[k - 1]).y());
    }
    QVERIFY(canvas->ServerPoint(model->ServerOrder()[0]).x() >
            canvas->ClientPoint(model->ClientOrder()[0]).x());
    const FlowModel::Edge* fading = model->FindEdge("client-1", "backend-2");
    QVERIFY(fading && fading->rate > 0 && fading->slots.isEmpty());
    // Hovering an edge's middle finds that edge.
    const FlowModel::Edge* live = model->FindEdge("client-1", "backend-1");
    QVERIFY(live);
    const QPointF middle =
        (canvas->ClientPoint(live->client) + canvas->ServerPoint(live->server)) / 2;
    const int at = canvas->EdgeAt(middle);
    QVERIFY(at >= 0);
    QCOMPARE(model->Edges()[size_t(at)].server, live->server);
    QVERIFY(canvas->accessibleDescription().contains("1 draining"));
    // Hover texts: the edge's rate and slots, a server's figures over its name.
    const QString edge_tip = canvas->ToolTipAt(middle);
    QVERIFY2(edge_tip.startsWith(QString("client-1 → backend-1: %1 requests/s")
                                     .arg(*live->rate, 0, 'f', *live->rate >= 100 ? 0 : 1)),
             qPrintable(edge_tip));
    QVERIFY2(edge_tip.contains("slots 0 (1 busy)"), qPrintable(edge_tip));
    const QPointF backend2 = canvas->ServerPoint(fading->server);
    const QString server_tip = canvas->ToolTipAt(backend2 + QPointF(30, 0));
    QVERIFY2(server_tip.startsWith("backend-2: lame duck"), qPrintable(server_tip));
    SaveScreenshot(&view, "flow_5x4_one_drained.png");

    // A dark palette: the canvas follows it.
    QPalette dark = view.palette();
    dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x24));
    dark.setColor(QPalette::Window, QColor(0x2a, 0x2a, 0x2e));
    dark.setColor(QPalette::Text, Qt::white);
    dark.setColor(QPalette::WindowText, Qt::white);
    view.setPalette(dark);
    const QImage image = view.Canvas()->grab().toImage();
    QCOMPARE(image.pixelColor(2, 2), QColor(0x20, 0x20, 0x24));
    SaveScreenshot(&view, "flow_5x4_one_drained_dark.png");
  }

  // At 1024 px the legend was one long row cut at the right, and busy connections showed only in
  // tooltips: now the legend wraps so every entry is whole, and a busy edge has a mark the legend
  // explains.
  void theLegendFitsAt1024AndExplainsTheBusyMark() {
    ClusterState state;
    FlowView view(&state);
    view.resize(1024, 700);
    HandCluster cluster;
    cluster.Declare(&state);
    cluster.Apply(&state);
    for (int f = 0; f < 10; ++f) cluster.Step(&state, [](int, int) { return quint64(1000); });
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    for (int width : {1024, 800, 600}) {  // 600: the tab beside the node list at 1024.
      view.resize(width, 700);
      QTRY_COMPARE(view.Legend()->width(), width - 8);  // The layout's margins.
      const QWidget* legend = view.Legend();
      QStringList labels;
      for (const auto& entry : view.Legend()->Entries()) {
        labels << entry.label;
        QVERIFY2(legend->rect().contains(entry.rect),
                 qPrintable(QString("%1 px: \"%2\" at %3..%4, legend %5 x %6")
                                .arg(width)
                                .arg(entry.label)
                                .arg(entry.rect.left())
                                .arg(entry.rect.right())
                                .arg(legend->width())
                                .arg(legend->height())));
      }
      QVERIFY2(labels.contains("busy connections"), qPrintable(labels.join(", ")));
    }
    view.resize(1024, 700);
    QTRY_COMPARE(view.Legend()->width(), 1024 - 8);
    QVERIFY(view.Legend()->accessibleDescription().contains("busy connections"));

    // client-1 keeps its connections busy, client-2 does not.
    const FlowModel* model = view.Model();
    const FlowModel::Edge* busy = model->FindEdge("client-1", "backend-1");
    const FlowModel::Edge* idle = model->FindEdge("client-2", "backend-1");
    QVERIFY(busy && idle && busy->busy > 0 && idle->busy == 0);
    const auto index_of = [model](const FlowModel::Edge* e) { return int(e - &model->Edges()[0]); };
    const railyard::ui::FlowCanvas* canvas = view.Canvas();
    QVERIFY(canvas->BusyMarkPoint(index_of(idle)).isNull());
    const QPointF mark = canvas->BusyMarkPoint(index_of(busy));
    QVERIFY(!mark.isNull());
    const QImage image = view.Canvas()->grab().toImage();
    QCOMPARE(image.pixelColor(mark.toPoint()), canvas->palette().color(QPalette::Text));
    SaveScreenshot(&view, "flow_legend_1024.png");
  }

  // Busy marks and node dots are copied from sprites drawn once per quarter-pixel phase: each copy
  // must be the mark QPainter draws directly there, to within that rounding (an eighth of a pixel
  // at most each way, a quarter of the contrast at the rim), at any fraction of a pixel. Drawn at
  // the whole pixel instead (the phase ignored), the rims differ by half the contrast.
  void spritesMatchTheMarksDrawnDirectly() {
    QPalette palette;
    palette.setColor(QPalette::Base, QColor(0xfa, 0xfa, 0xf0));
    palette.setColor(QPalette::Text, QColor(0x10, 0x10, 0x30));
    const QColor background(0x60, 0xa0, 0x40);  // An edge under the mark.
    railyard::ui::SpriteCache sprites;
    int largest = 0;
    for (double fx : {0.0, 0.1, 0.25, 0.37, 0.5, 0.62, 0.8, 0.99}) {
      for (double fy : {0.0, 0.2, 0.45, 0.75, 0.9}) {
        const QPointF at(10 + fx, 12 + fy);
        QImage direct(24, 24, QImage::Format_ARGB32_Premultiplied);
        direct.fill(background);
        QImage copied = direct;
        {
          QPainter p(&direct);
          p.setRenderHint(QPainter::Antialiasing);
          FlowLegend::PaintBusyMark(p, at, palette);
        }
        {
          QPainter p(&copied);
          p.setRenderHint(QPainter::Antialiasing);
          sprites.Draw(p, at, 7, 3.5 + 0.75, [&palette](QPainter& sp, const QPointF& c) {
            FlowLegend::PaintBusyMark(sp, c, palette);
          });
        }
        QPoint where;
        const int difference = LargestDifference(direct, copied, &where);
        QVERIFY2(difference <= 64, qPrintable(QString("at (%1, %2): %3 at pixel (%4, %5)")
                                                  .arg(at.x())
                                                  .arg(at.y())
                                                  .arg(difference)
                                                  .arg(where.x())
                                                  .arg(where.y())));
        largest = std::max(largest, difference);
        // The middle is the mark's colour, as the legend promises.
        QCOMPARE(copied.pixelColor(at.toPoint()), palette.color(QPalette::Text));
      }
    }
    // Positions on whole and quarter pixels draw exactly (but for the blend's 8-bit rounding).
    QVERIFY(sprites.Size() == 16);
    QImage direct(24, 24, QImage::Format_ARGB32_Premultiplied), copied(24, 24, direct.format());
    direct.fill(background);
    copied.fill(background);
    {
      QPainter p(&direct);
      p.setRenderHint(QPainter::Antialiasing);
      FlowLegend::PaintBusyMark(p, QPointF(11.25, 12.5), palette);
      QPainter q(&copied);
      q.setRenderHint(QPainter::Antialiasing);
      sprites.Draw(q, QPointF(11.25, 12.5), 7, 4.25, [&palette](QPainter& sp, const QPointF& c) {
        FlowLegend::PaintBusyMark(sp, c, palette);
      });
    }
    QVERIFY2(LargestDifference(direct, copied) <= 2,
             qPrintable(QString("largest difference at other phases: %1").arg(largest)));
  }

  // The canvas keeps images of what a frame rarely changes (the names, the dots and marks): after
  // a resize, a node added, a server drained, a palette and a font change, a long-lived canvas
  // shows exactly what a new one on the same state shows, and it changed.
  void cachedPartsAreRedrawnWhenWhatTheyShowChanges() {
    ClusterState state;
    FlowView kept(&state);
    kept.resize(900, 500);
    kept.show();
    QVERIFY(QTest::qWaitForWindowExposed(&kept));
    HandCluster cluster;
    cluster.Declare(&state);
    cluster.Apply(&state);
    auto per_frame = [](int c, int s) { return quint64(10 * c + s); };
    for (int f = 0; f < 10; ++f) cluster.Step(&state, per_frame);
    // A new canvas on the same model has no images kept from before.
    auto matches_new_view = [&](const char* what) {
      QCoreApplication::processEvents();
      railyard::ui::FlowCanvas fresh(kept.Model());
      fresh.setPalette(kept.palette());  // As set on the view (a child's own is not "set").
      fresh.setFont(kept.font());
      fresh.resize(kept.Canvas()->size());
      const QImage expected =
          fresh.grab().toImage().convertToFormat(QImage::Format_ARGB32_Premultiplied);
      const QImage got = CanvasImage(kept);
      if (got != expected) {
        QPoint where;
        const int difference = LargestDifference(got, expected, &where);
        qWarning("%s: the kept canvas differs from a new one by %d at (%d, %d)", what, difference,
                 where.x(), where.y());
        return false;
      }
      return true;
    };
    QImage before = CanvasImage(kept);
    QVERIFY(matches_new_view("at first"));

    kept.resize(700, 420);
    QVERIFY(matches_new_view("resized"));
    QVERIFY(CanvasImage(kept) != before);
    before = CanvasImage(kept);

    // A sixth client and a fifth server (re-laid out: every row moves).
    cluster.clients = 6;
    cluster.servers = 5;
    state.AddNode("10.9.0.5:7001", HandCluster::Server(5));
    for (int f = 0; f < 3; ++f) cluster.Step(&state, per_frame);
    QVERIFY(matches_new_view("a node added"));
    QVERIFY(CanvasImage(kept) != before);
    before = CanvasImage(kept);

    // backend-3 drains: its dot turns the lame-duck colour, nothing else moves.
    cluster.drained.insert(3);
    cluster.Step(&state, per_frame);
    QVERIFY(matches_new_view("a server drained"));
    QVERIFY(CanvasImage(kept) != before);
    before = CanvasImage(kept);

    QPalette dark = kept.palette();
    dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x24));
    dark.setColor(QPalette::Text, QColor(0xf0, 0xf0, 0xe0));
    dark.setColor(QPalette::Mid, QColor(0x80, 0x80, 0x90));
    dark.setColor(QPalette::PlaceholderText, QColor(0xa0, 0xa0, 0xa0));
    kept.setPalette(dark);
    QVERIFY(matches_new_view("a palette change"));
    QVERIFY(CanvasImage(kept) != before);
    before = CanvasImage(kept);

    QFont bigger = kept.font();
    bigger.setPointSizeF(bigger.pointSizeF() * 1.5);
    kept.setFont(bigger);
    QVERIFY(matches_new_view("a font change"));
    QVERIFY(CanvasImage(kept) != before);
  }

  // The names are copied from an image of their column: it must hold what drawing each name
  // there draws (the old way, and the one that must not change).
  void theNamesAreTheTextDrawnInPlace() {
    ClusterState state;
    FlowView view(&state);
    view.resize(900, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    HandCluster cluster;
    cluster.Declare(&state);
    cluster.Apply(&state);
    for (int f = 0; f < 10; ++f) cluster.Step(&state, [](int c, int) { return quint64(c); });
    QCoreApplication::processEvents();
    const railyard::ui::FlowCanvas* canvas = view.Canvas();
    const FlowModel* model = view.Model();
    const QImage got = CanvasImage(view);
    QImage expected(got.size(), got.format());
    expected.fill(canvas->palette().color(QPalette::Base));
    const QFontMetrics fm = canvas->fontMetrics();
    const double shift = (fm.ascent() - fm.descent()) / 2.0;
    constexpr double kDot = 5;
    int left_end = 0;
    {
      QPainter p(&expected);
      p.setFont(canvas->font());
      p.setRenderHint(QPainter::Antialiasing);
      p.setPen(canvas->palette().color(QPalette::Text));
      for (int c : model->ClientOrder()) {
        const QPointF at = canvas->ClientPoint(c);
        const QString& name = model->Clients()[size_t(c)].name;
        p.drawText(QPointF(at.x() - kDot - 6 - fm.horizontalAdvance(name), at.y() + shift), name);
        left_end = int(at.x() - kDot - 2);
      }
    }
    const QImage got_names = got.copy(0, 0, left_end, got.height());
    QVERIFY(got_names.pixelColor(got_names.width() / 2, got_names.height() / 2) ==
            canvas->palette().color(QPalette::Base));
    bool inked = false;  // Not blank.
    for (int y = 0; y < got_names.height() && !inked; ++y) {
      for (int x = 0; x < got_names.width() && !inked; ++x) {
        inked = got_names.pixelColor(x, y) != canvas->palette().color(QPalette::Base);
      }
    }
    QVERIFY(inked);
    QCOMPARE(got_names, expected.copy(0, 0, left_end, got.height()));
  }

  void aHundredNodesKeepTheirNamesLegible() {
    railyard::ui::testing::GeneratedCluster g;  // 100 nodes, 200 clients.
    ClusterState state;
    FlowView view(&state);
    view.resize(1200, 800);
    for (int n = 0; n < g.nodes; ++n) {
      state.AddNode(QString("10.0.0.%1:7001").arg(n), QString::fromStdString(g.NodeName(n)));
    }
    for (int frame = 0; frame < 25; ++frame) {
      std::vector<ClusterState::Update> updates;
      for (int n = 0; n < g.nodes; ++n) {
        updates.push_back({n, std::make_shared<const Telemetry>(g.Telemetry(n, frame, n == 1))});
      }
      state.ApplyFrame(updates, g.TimeOf(frame));
    }
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const FlowModel* model = view.Model();
    QCOMPARE(model->ServerOrder().size(), 100);
    QCOMPARE(model->ClientOrder().size(), 200);
    // Every pool entry counts 10 requests a frame: 100/s on each of the 8 x 200 edges.
    QCOMPARE(model->MaxEdgeRate(), 100.0);
    QCOMPARE(model->Servers()[size_t(model->ServerOrder()[0])].name, QString("n000"));
    // A row per client at the font's height: the canvas scrolls rather than squeezing names.
    const railyard::ui::FlowCanvas* canvas = view.Canvas();
    QVERIFY(canvas->height() >= 200 * canvas->fontMetrics().height());
    const QPointF c0 = canvas->ClientPoint(model->ClientOrder()[0]);
    const QPointF c1 = canvas->ClientPoint(model->ClientOrder()[1]);
    QVERIFY(c1.y() - c0.y() >= canvas->fontMetrics().height());
    SaveScreenshot(&view, "flow_100_nodes_200_clients.png");
  }

  void aSimulatedRollingRestartMovesTheLoad() {
    // railyardctl sim records 20 backends and a "clients" process with 50 clients' pools, which
    // name the backends by name; from 10 s one backend at a time goes lame duck for 5 s.
    QTemporaryDir dir;
    const QString out = dir.filePath("sim.rec");
    QProcess sim;
    sim.start(BuiltProgram("railyardctl"),
              {"sim", SourcePath("resources/scenarios/09-rolling-restart.scn"), "--policy",
               "lowest-slot", "--duration-s", "16", "--record", out});
    QVERIFY(sim.waitForFinished(60000));
    QVERIFY2(sim.exitCode() == 0, sim.readAllStandardError().constData());
    ClusterState state;
    FlowModel model(&state);
    railyard::ui::ReplaySource replay(&state);
    QString error;
    QVERIFY2(replay.Open(out, &error), qPrintable(error));
    auto rates = [&model] {
      std::map<QString, double> out;
      for (int s : model.ServerOrder()) {
        out[model.Servers()[size_t(s)].name] = model.Servers()[size_t(s)].rate.value_or(-1);
      }
      return out;
    };
    auto total = [](const std::map<QString, double>& r) {
      double sum = 0;
      for (const auto& [name, rate] : r) sum += rate;
      return sum;
    };
    replay.Seek(replay.StartMs() + 9500);
    const auto before = rates();
    QCOMPARE(before.size(), size_t{20});  // The clients' process is no server.
    QCOMPARE(model.ClientOrder().size(), 50);
    for (int c : model.ClientOrder()) QVERIFY(model.Clients()[size_t(c)].watched());
    replay.Seek(replay.StartMs() + 13000);
    // The first to go lame (the lowest name) has been draining longest.
    QString lame;
    for (int s : model.ServerOrder()) {
      if (model.Servers()[size_t(s)].health == NodeHealth::kLameDuck) {
        lame = model.Servers()[size_t(s)].name;
        break;
      }
    }
    QVERIFY(!lame.isEmpty());
    const auto during = rates();
    qInfo() << "lame" << lame << before.at(lame) << "->" << during.at(lame) << "total"
            << total(before) << "->" << total(during);
    QVERIFY(before.at(lame) > 0);
    QCOMPARE(during.at(lame), 0.0);  // Lame for longer than the rate window.
    QVERIFY(total(during) > total(before) * 0.8);
  }

  void realNodesWithABoxcarClientOneDrained() {
    QTemporaryDir dir;
    constexpr char kViewer[] = "viewer-token-flow";
    std::vector<std::unique_ptr<railyard::node::Node>> nodes;
    for (int n = 1; n <= 2; ++n) {
      railyard::node::NodeOptions options;
      options.name = "flow-node-" + std::to_string(n);
      options.data_dir = dir.filePath(QString("n%1").arg(n)).toStdString();
      options.io_threads = 1;
      options.worker_threads = 1;
      options.admin.viewer_tokens = {kViewer};
      std::unique_ptr<railyard::node::Node> node;
      QVERIFY(railyard::node::Node::Open(options, &node).ok());
      nodes.push_back(std::move(node));
    }
    railyard::load::LoadOptions load;
    load.servers = {nodes[0]->endpoint(), nodes[1]->endpoint()};
    load.pool_size = 4;
    load.concurrency = 2;
    load.keys = 1000;
    load.client_name = "flow-test-client";
    railyard::load::LoadGenerator generator(load);
    QVERIFY(generator.Start().ok());

    ClusterState state;
    FlowView view(&state);
    railyard::ui::LiveSource source(&state);
    railyard::ui::LiveSource::Options o;
    o.poll_hz = 20;
    source.SetOptions(o);
    for (const auto& node : nodes) {
      QString error;
      QVERIFY2(source.AddNode(QString::fromStdString(node->admin_endpoint().ToString()), kViewer,
                              &error) >= 0,
               qPrintable(error));
    }
    source.Start();
    const FlowModel* model = view.Model();
    // The client is not watched: its edges come from the servers' slot tables.
    auto edge = [model](int n) {
      return model->FindEdge("flow-test-client", QString("flow-node-%1").arg(n));
    };
    QTRY_VERIFY_WITH_TIMEOUT((edge(1) && edge(1)->rate > 0) || (edge(2) && edge(2)->rate > 0),
                             15000);
    const int busy = edge(1) && edge(1)->rate > 0 ? 1 : 2;
    const int other = 3 - busy;
    QVERIFY(!edge(busy)->from_pool);
    QVERIFY(!edge(busy)->slots.isEmpty());
    // The server taking traffic drains: its edge fades to zero and the other carries the load.
    nodes[size_t(busy - 1)]->server().EnterLameDuck();
    QTRY_VERIFY_WITH_TIMEOUT(model->Servers()[size_t(busy - 1)].health == NodeHealth::kLameDuck,
                             10000);
    QTRY_VERIFY_WITH_TIMEOUT(!edge(busy) || edge(busy)->rate == 0, 15000);
    QTRY_VERIFY_WITH_TIMEOUT(edge(other) && edge(other)->rate > 0, 15000);
    view.resize(900, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    SaveScreenshot(&view, "flow_real_nodes_one_drained.png");
    source.Stop();
    generator.Stop();
    for (auto& node : nodes) node->Shutdown(std::chrono::milliseconds(200));
  }
};

RAILYARD_QTEST_MAIN(FlowTest)
#include "tst_flow.moc"
