// SPDX-License-Identifier: Apache-2.0
// Clients as rows of their own: a watched client's calls never add to the cluster's served
// requests (bug B8; a real node under a real load client, then generated frames), the Overview
// gives a client row its own figures
// (rate, errors, POOL_EXHAUSTED rejections, retries, client-side p99) and says which side each
// p99 is from, a row without traffic shows "—" rather than its last p99 (bug B17), and a client
// that went unreachable keeps its figures grey like any node.
#include <QDir>
#include <QFont>
#include <QFontMetrics>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "core/cluster/admin_client.h"
#include "core/load/load_generator.h"
#include "core/node/client_telemetry.h"
#include "core/node/node.h"
#include "core/node/telemetry.h"

#include "tests/support/qtest_main.h"
#include "tests/ui/screenshot.h"
#include "tests/ui/ui_test_support.h"
#include "ui/models/cluster_state.h"
#include "ui/models/flow_model.h"
#include "ui/models/overview_model.h"
#include "ui/models/palette.h"
#include "ui/models/throughput_model.h"
#include "ui/views/overview_view.h"

using namespace railyard;
using railyard::ui::ClusterState;
using railyard::ui::NodeHealth;
using railyard::ui::OverviewModel;
using railyard::ui::ThroughputModel;
using railyard::ui::testing::SaveScreenshot;

namespace {

constexpr qint64 kT0 = 1'750'000'000'000;
const QString kDash = QString::fromUtf8("\u2014");

std::shared_ptr<const admin::Telemetry> Server(const char* name, double rate, double p99_us) {
  auto t = std::make_shared<admin::Telemetry>();
  t->set_node(name);
  t->set_role(admin::ROLE_SERVER);
  t->set_state(admin::NODE_SERVING);
  t->mutable_throughput()->set_requests_per_s(rate);
  admin::MethodStats* m = t->mutable_throughput()->add_methods();
  m->set_method("doc.Get");
  m->set_requests(5000);
  m->set_requests_per_s(rate);
  m->set_p50_us(p99_us / 2);
  m->set_p99_us(p99_us);
  return t;
}

// A load client as `railyardctl load --admin-listen` reports it: its calls in its pool's
// ClientThroughput, and (as before that field existed) in its Throughput too.
std::shared_ptr<const admin::Telemetry> Client(const char* name, double rate) {
  auto t = std::make_shared<admin::Telemetry>();
  t->set_node(name);
  t->set_role(admin::ROLE_CLIENT);
  t->set_state(admin::NODE_SERVING);
  t->mutable_throughput()->set_requests_per_s(rate);
  admin::ClientPool* pool = t->add_pools();
  pool->set_client_id(77);
  pool->set_client_name(name);
  admin::ClientThroughput* calls = pool->mutable_throughput();
  calls->set_requests_per_s(rate);
  const bool busy = rate > 0;
  calls->set_errors_per_s(busy ? 1.5 : 0);
  calls->set_rejections_per_s(busy ? 140 : 0);
  calls->set_retries_per_s(busy ? 3 : 0);
  calls->set_p50_us(900);
  calls->set_p99_us(5120);
  calls->set_max_us(8000);
  return t;
}

std::shared_ptr<const admin::Telemetry> Poll(const rpc::Endpoint& admin) {
  cluster::AdminClient client(admin, "");
  auto t = std::make_shared<admin::Telemetry>();
  if (!client.Connect(std::chrono::seconds(5)).ok() || !client.Telemetry(t.get()).ok()) {
    return nullptr;
  }
  return t;
}

// A small real node with its store in `dir`; null if it did not open.
std::unique_ptr<node::Node> OpenNode(const QTemporaryDir& dir, const char* name) {
  node::NodeOptions options;
  options.name = name;
  options.data_dir = dir.filePath("node").toStdString();
  options.io_threads = 1;
  options.worker_threads = 2;
  std::unique_ptr<node::Node> server;
  if (!node::Node::Open(options, &server).ok()) return nullptr;
  return server;
}

using railyard::ui::testing::Cell;

}  // namespace

class ClientRowsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // A real node under a real load client that exposes its telemetry, both watched: the cluster's
  // rate is the node's, not the node's plus the client's (each request counted once).
  void wholeClusterIsTheServersSumWithARealClientWatched() {
    QTemporaryDir dir;
    std::unique_ptr<node::Node> server = OpenNode(dir, "served");
    QVERIFY(server);
    load::LoadOptions load_options;
    load_options.servers = {server->endpoint()};
    load_options.concurrency = 4;
    load_options.pool_size = 4;
    load::LoadGenerator load(load_options);
    QVERIFY(load.Start().ok());
    node::AdminOptions admin_options;
    admin_options.name = "load";
    // As `railyardctl load --admin-listen` serves it: its pool, and its own calls as Throughput.
    std::unique_ptr<node::AdminService> client_admin = node::MakeClientAdminService(
        admin_options,
        [&load] {
          return std::vector<node::NamedPool>{{"load", load.client().Snapshot()}};
        },
        [&load](admin::Telemetry* t) {
          node::FillThroughput(load.stats(), t->mutable_throughput());
        });
    QVERIFY(client_admin->Start().ok());

    ClusterState state;
    ThroughputModel throughput(&state);
    state.AddNode(QString::fromStdString(server->admin_endpoint().ToString()));
    state.AddNode(QString::fromStdString(client_admin->endpoint().ToString()));
    std::shared_ptr<const admin::Telemetry> served, client;
    // Both sides busy: the client's figures would visibly double the sum if they were added.
    QTRY_VERIFY_WITH_TIMEOUT(
        (served = Poll(server->admin_endpoint())) && (client = Poll(client_admin->endpoint())) &&
            served->throughput().requests_per_s() > 0 && client->pools_size() == 1 &&
            client->pools(0).throughput().requests_per_s() > 0,
        20000);
    state.ApplyFrame({{0, served}, {1, client}}, kT0);
    client_admin->Stop();
    load.Stop();
    server->Shutdown(std::chrono::milliseconds(200));

    QCOMPARE(client->role(), admin::ROLE_CLIENT);
    const ThroughputModel::Series& cluster = throughput.series(ThroughputModel::kCluster);
    QVERIFY(!cluster.empty());
    QCOMPARE(cluster.back().requests_per_s, served->throughput().requests_per_s());
  }

  // C5: a demo client's writes go through a second client to the updater; its admin service
  // reported only the read client, so Flow left the writes out (an updater serving thousands of
  // requests a second read 230/s there). Both clients are now one pool, as `railyardctl load`
  // reports them.
  void aLoadClientsWritesShowInItsPoolAndInFlow() {
    QTemporaryDir dir;
    std::unique_ptr<node::Node> server = OpenNode(dir, "updater");
    QVERIFY(server);
    load::LoadOptions load_options;
    load_options.servers = {server->endpoint()};
    load_options.updater = server->endpoint();
    load_options.read_fraction = 0;  // Writes only: all of them on the write client.
    load_options.concurrency = 4;
    load_options.pool_size = 4;
    load::LoadGenerator load(load_options);
    QVERIFY(load.Start().ok());
    QVERIFY(load.write_client());
    std::vector<std::unique_ptr<node::AdminService>> admins;
    QVERIFY(
        node::StartClientAdminServices({}, {{"load", &load.client(), load.write_client()}}, &admins)
            .ok());
    const std::string address = server->endpoint().ToString();
    const auto requests_to_server = [&address](const admin::Telemetry& t) {
      uint64_t sum = 0;
      for (const admin::PoolEntry& e : t.pools(0).entries()) {
        if (e.server() == address) {
          sum += e.requests();
        }
      }
      return sum;
    };
    std::shared_ptr<const admin::Telemetry> first, second, served;
    QTRY_VERIFY_WITH_TIMEOUT((first = Poll(admins[0]->endpoint())) && first->pools_size() == 1 &&
                                 requests_to_server(*first) > 0,
                             20000);
    QCOMPARE(first->pools(0).capacity(), 8u);  // The read client's 4 and the write client's 4.
    QTRY_VERIFY_WITH_TIMEOUT((second = Poll(admins[0]->endpoint())) &&
                                 requests_to_server(*second) > requests_to_server(*first),
                             20000);
    QVERIFY((served = Poll(server->admin_endpoint())));

    ClusterState state;
    railyard::ui::FlowModel flow(&state);
    state.AddNode(QString::fromStdString(server->admin_endpoint().ToString()));
    state.AddNode(QString::fromStdString(admins[0]->endpoint().ToString()));
    state.ApplyFrame({{0, served}, {1, first}}, kT0);
    state.ApplyFrame({{0, served}, {1, second}}, kT0 + 500);
    for (auto& admin : admins) admin->Stop();
    load.Stop();
    server->Shutdown(std::chrono::milliseconds(200));
    double rate = 0;
    for (const auto& s : flow.Servers()) {
      if (s.node == 0) rate = s.rate.value_or(-1);
    }
    QVERIFY2(rate > 0, qPrintable(QString::number(rate)));
    int connections = -1;
    for (const auto& c : flow.Clients()) {
      if (c.node == 1) connections = c.connections;
    }
    QCOMPARE(connections, 8);
  }

  void wholeClusterAddsServersOnly() {
    ClusterState state;
    ThroughputModel throughput(&state);
    for (const char* address : {"h:1", "h:2", "h:3"}) state.AddNode(address);
    state.ApplyFrame(
        {{0, Server("a", 1200, 100)}, {1, Server("b", 800, 150)}, {2, Client("load", 2000)}}, kT0);
    const ThroughputModel::Series& cluster = throughput.series(ThroughputModel::kCluster);
    QVERIFY(!cluster.empty());
    // Every request the client made was served by a or b: counted once, at the servers.
    QCOMPARE(cluster.back().requests_per_s, 2000.0);
    QCOMPARE(cluster.back().p99_us, 150.0);  // The servers' p99, not the client's.
    QVERIFY(ui::ServesRequests(*state.Node(0).telemetry));
    QVERIFY(!ui::ServesRequests(*state.Node(2).telemetry));
  }

  void clientRowsShowTheirOwnCalls() {
    ClusterState state;
    OverviewModel model(&state);
    for (const char* address : {"h:1", "h:2"}) state.AddNode(address);
    state.ApplyFrame({{0, Server("a", 2000, 130)}, {1, Client("load", 2000)}}, kT0);

    QCOMPARE(Cell(model, 1, OverviewModel::kRole), QString("client"));
    QCOMPARE(Cell(model, 1, OverviewModel::kRequests), QString("2000"));
    QCOMPARE(Cell(model, 1, OverviewModel::kErrors), QString("1.5"));
    QCOMPARE(Cell(model, 1, OverviewModel::kRejections), QString("140.0"));
    QCOMPARE(Cell(model, 1, OverviewModel::kRetries), QString("3.0"));
    QCOMPARE(Cell(model, 1, OverviewModel::kClientP99), QString("5.12"));
    QCOMPARE(Cell(model, 1, OverviewModel::kP99), QString());  // Not a server-side figure.
    // A client holds no server slots and has no store: blank, not "0" and "0 %" (C16).
    QCOMPARE(Cell(model, 1, OverviewModel::kSlots), QString());
    QCOMPARE(Cell(model, 1, OverviewModel::kIndexes), QString());
    QCOMPARE(Cell(model, 1, OverviewModel::kBloom), QString());
    QVERIFY(model.index(1, OverviewModel::kName).data(Qt::FontRole).value<QFont>().italic());

    QCOMPARE(Cell(model, 0, OverviewModel::kP99), QString("0.13"));
    QCOMPARE(Cell(model, 0, OverviewModel::kClientP99), QString());
    QCOMPARE(Cell(model, 0, OverviewModel::kRetries), QString());
    QVERIFY(!model.index(0, OverviewModel::kName).data(Qt::FontRole).isValid());

    // The headings say which side each p99 is measured on.
    const auto heading = [&](int column) {
      return model.headerData(column, Qt::Horizontal, Qt::DisplayRole).toString();
    };
    QVERIFY(heading(OverviewModel::kP99).startsWith("Server"));
    QVERIFY(heading(OverviewModel::kClientP99).startsWith("Client"));
    QVERIFY(model.headerData(OverviewModel::kClientP99, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains("Client-side"));

    // A row sum (the headless summary line's) counts the request once, at the server.
    double served = 0;
    for (int i = 0; i < state.NodeCount(); ++i) {
      served += OverviewModel::RowOf(state.Node(i), state.NowMs()).requests_per_s;
    }
    QCOMPARE(served, 2000.0);
  }

  void noTrafficShowsADashNotTheLastP99() {
    ClusterState state;
    OverviewModel model(&state);
    for (const char* address : {"h:1", "h:2"}) state.AddNode(address);
    state.ApplyFrame({{0, Server("drained", 0, 190)}, {1, Client("idle-load", 0)}}, kT0);
    QCOMPARE(Cell(model, 0, OverviewModel::kRequests), QString("0"));
    QCOMPARE(Cell(model, 0, OverviewModel::kP99), kDash);
    QCOMPARE(Cell(model, 1, OverviewModel::kClientP99), kDash);
    // Sorting puts them below any measured latency.
    QVERIFY(model.index(0, OverviewModel::kP99).data(OverviewModel::kSortRole).toDouble() < 0);

    // An updater that only answers its replicas' fetches: busy, but with no request latency to
    // show (long-polls are not requests' latency, docs/figures.md), so a dash, not "0.00".
    auto updater = std::make_shared<admin::Telemetry>(*Server("updater", 0, 0));
    updater->mutable_throughput()->set_requests_per_s(2);
    admin::MethodStats* fetch = updater->mutable_throughput()->add_methods();
    fetch->set_method("repl.Fetch");
    fetch->set_requests(120);
    fetch->set_requests_per_s(2);
    fetch->set_p99_us(1'000'000);
    state.ApplyFrame({{0, updater}}, kT0 + 1000);
    QCOMPARE(Cell(model, 0, OverviewModel::kRequests), QString("2"));
    QCOMPARE(Cell(model, 0, OverviewModel::kP99), kDash);
  }

  void anUnreachableClientKeepsGreyFigures() {
    ClusterState state;
    OverviewModel model(&state);
    state.AddNode("h:1");
    state.ApplyFrame({{0, Client("load", 500)}}, kT0);
    QVERIFY(!model.index(0, OverviewModel::kClientP99).data(Qt::ForegroundRole).isValid());
    state.ApplyFrame({{0, nullptr, "UNAVAILABLE: connection refused"}}, kT0 + 1000);
    QCOMPARE(state.Node(0).health, NodeHealth::kUnreachable);
    for (int column : {int(OverviewModel::kRequests), int(OverviewModel::kRejections),
                       int(OverviewModel::kRetries), int(OverviewModel::kClientP99)}) {
      QCOMPARE(model.index(0, column).data(Qt::ForegroundRole).value<QColor>(),
               ui::HealthColor(NodeHealth::kStale));
    }
    QCOMPARE(Cell(model, 0, OverviewModel::kClientP99), QString("5.12"));  // Last known, grey.
  }

  // The view as an operator sees it: servers, a busy client, a drained server and an idle
  // client, with the legend saying which rows are clients.
  void screenshotOfClientRows() {
    ClusterState state;
    ui::OverviewView view(&state);
    for (const char* address : {"h:1", "h:2", "h:3", "h:4", "h:5"}) state.AddNode(address);
    state.ApplyFrame({{0, Server("backend-1", 1300, 120)},
                      {1, Server("backend-2", 700, 180)},
                      {2, Server("backend-3 (drained)", 0, 190)},
                      {3, Client("railyardctl-load", 2000)},
                      {4, Client("idle-client", 0)}},
                     kT0);
    view.resize(1200, 320);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    SaveScreenshot(&view, "overview_client_rows.png");
  }

  // C8: in a replay, Space went into "Filter by name" (it had the focus), and the table emptied
  // with no hint while playback went on. Blanks now filter nothing, the field takes focus only
  // from a click, and a filter that hides every node says so.
  void aStraySpaceHidesNothingAndAnEmptyFilterSaysSo() {
    ClusterState state;
    ui::OverviewView view(&state);
    for (const char* address : {"h:1", "h:2"}) state.AddNode(address);
    state.ApplyFrame({{0, Server("backend-1", 1300, 120)}, {1, Server("backend-2", 700, 180)}},
                     kT0);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.NameFilter()->focusPolicy(), Qt::ClickFocus);
    view.NameFilter()->setText(" ");
    QCOMPARE(view.Table()->model()->rowCount(), 2);
    QVERIFY(!view.NoMatches()->isVisible());
    view.NameFilter()->setText("nothing-like-it");
    QCOMPARE(view.Table()->model()->rowCount(), 0);
    QVERIFY(view.NoMatches()->isVisible());
    QVERIFY2(view.NoMatches()->text().contains("2 nodes hidden"),
             qPrintable(view.NoMatches()->text()));
    view.NameFilter()->clear();
    QCOMPARE(view.Table()->model()->rowCount(), 2);
    QVERIFY(!view.NoMatches()->isVisible());
    // C11: the state column fits the reason ("unreach..." and "token ..." were cut off).
    const QFontMetrics metrics(view.Table()->font());
    for (const char* state : {"stale since 12:34:56", "token refused", "unreachable"}) {
      QVERIFY2(view.Table()->columnWidth(OverviewModel::kState) >=
                   metrics.horizontalAdvance(state) + metrics.height(),
               state);
    }
  }
};

RAILYARD_QTEST_MAIN(ClientRowsTest)
#include "tst_client_rows.moc"
