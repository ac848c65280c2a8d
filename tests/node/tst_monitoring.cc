// SPDX-License-Identifier: Apache-2.0
// The node's HTTP listener for Prometheus and health checks: /metrics passes Prometheus' own
// `promtool check metrics`, its counters are the numbers telemetry shows, /readyz follows the
// node's state (starting, serving, lame duck), a bearer token guards /metrics when configured,
// TLS when configured, and malformed or unknown requests get clear 400/404/405 answers.
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <sstream>
#include <thread>

#include "core/http/http_message.h"
#include "core/node/config.h"
#include "core/node/node.h"
#include "core/node/token_reload.h"
#include "core/rpc/client.h"
#include "railyard/docservice.pb.h"
#include "tests/rpc/tls_test_certs.h"
#include "tests/support/free_port.h"
#include "tests/support/http_get.h"
#include "tests/support/qtest_main.h"
#include "tests/support/wait_until.h"

using namespace railyard;
using railyard::testing::FreePort;
using namespace std::chrono_literals;
using testing::HttpGet;

namespace {

node::NodeOptions Small(const QString& dir) {
  node::NodeOptions options;
  options.name = "watched";
  options.data_dir = dir.toStdString();
  options.io_threads = 1;
  options.worker_threads = 2;
  options.monitoring = node::MonitoringOptions{};  // 127.0.0.1, an OS-chosen port.
  return options;
}

testing::HttpAnswer Get(node::Node& node, const std::string& target,
                        const std::string& headers = {}) {
  const rpc::Endpoint e = *node.monitoring_endpoint();
  return HttpGet(e.host, e.port, target, headers);
}

// Every sample of the exposition, keyed by its name and labels as written.
std::map<std::string, double> Samples(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    out[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return out;
}

// `promtool check metrics` on `text`: its exit code, and what it printed.
std::pair<int, QString> Promtool(const std::string& text) {
  QProcess promtool;
  promtool.start("promtool", {"check", "metrics"});
  if (!promtool.waitForStarted(10000))
    return {-1, "promtool is not installed (Debian: prometheus)"};
  promtool.write(text.data(), static_cast<qint64>(text.size()));
  promtool.closeWriteChannel();
  if (!promtool.waitForFinished(30000)) {
    promtool.kill();
    promtool.waitForFinished(5000);
    return {-1, "promtool did not finish in 30 s"};
  }
  return {promtool.exitCode(),
          QString::fromUtf8(promtool.readAllStandardOutput() + promtool.readAllStandardError())};
}

// Puts and gets through `client`, each answered before the next.
void Traffic(rpc::Client& client, int puts, int gets) {
  for (int i = 0; i < puts; ++i) {
    doc::PutRequest put;
    put.set_id(static_cast<uint64_t>(i + 1));
    put.set_doc("document " + std::to_string(i));
    QVERIFY(client.Call("doc.Put", put.SerializeAsString()).status.ok());
  }
  for (int i = 0; i < gets; ++i) {
    doc::GetRequest get;
    get.set_id(static_cast<uint64_t>(i + 1000));  // Never written: NOT_FOUND answers.
    QCOMPARE(client.Call("doc.Get", get.SerializeAsString()).status.code(), rpc::Code::kNotFound);
  }
}

}  // namespace

class MonitoringTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void metricsPassPromtoolAndAgreeWithTelemetry() {
    QTemporaryDir dir;
    std::unique_ptr<node::Node> node;
    const rpc::Status opened = node::Node::Open(Small(dir.path()), &node);
    QVERIFY2(opened.ok(), opened.ToString().c_str());
    rpc::ClientOptions client_options;
    client_options.servers = {node->endpoint()};
    client_options.pool_size = 1;
    // One acquirer, asleep for longer than the test once its probe of the full pool was turned
    // away: a probe's connection would hold a second slot while /metrics is read.
    client_options.refill_parallelism = 1;
    client_options.acquirer_sleep_min = client_options.acquirer_sleep_max =
        std::chrono::minutes(10);
    rpc::Client client(client_options);
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(1, 10s));
    QVERIFY(testing::WaitUntil([&] {
      return client.Snapshot().counters.connects >= 2 && node->server().SlotSnapshot().size() == 1;
    }));
    Traffic(client, 5, 3);
    if (QTest::currentTestFailed()) return;

    const testing::HttpAnswer answer = Get(*node, "/metrics");
    QCOMPARE(answer.status, 200);
    QVERIFY2(answer.head.find("Content-Type: text/plain; version=0.0.4") != std::string::npos,
             answer.head.c_str());
    const auto [code, said] = Promtool(answer.body);
    QVERIFY2(code == 0 && said.trimmed().isEmpty(), qPrintable(said));

    const admin::Telemetry t = node->Snapshot();
    std::map<std::string, uint64_t> telemetry_requests;
    for (const auto& m : t.throughput().methods()) telemetry_requests[m.method()] = m.requests();
    const std::map<std::string, double> s = Samples(answer.body);
    QCOMPARE(s.at("railyard_requests_total{method=\"doc.Put\",code=\"OK\"}"), 5.0);
    QCOMPARE(s.at("railyard_requests_total{method=\"doc.Get\",code=\"NOT_FOUND\"}"), 3.0);
    QCOMPARE(uint64_t(s.at("railyard_request_duration_seconds_count{method=\"doc.Put\"}")),
             telemetry_requests.at("doc.Put"));
    QCOMPARE(s.at("railyard_request_duration_seconds_bucket{method=\"doc.Get\",le=\"+Inf\"}"), 3.0);
    QCOMPARE(s.at("railyard_request_errors_total{method=\"doc.Put\"}"), 0.0);
    QCOMPARE(uint64_t(s.at("railyard_storage_writes_total")), t.storage().writes());
    QCOMPARE(uint64_t(s.at("railyard_storage_memtable_entries")), t.storage().memtable_entries());
    QCOMPARE(s.at("railyard_node_state{state=\"serving\"}"), 1.0);
    QCOMPARE(s.at("railyard_node_state{state=\"lame_duck\"}"), 0.0);
    QCOMPARE(s.at("railyard_connections"), 1.0);  // The client's one pooled connection.
    QCOMPARE(s.at("railyard_slot_highest"), static_cast<double>(t.slots(0).slot()));
    QVERIFY(s.at("process_resident_memory_bytes") > 0);
    QVERIFY(s.at("process_open_fds") > 0);
    QVERIFY(s.at("railyard_data_dir_free_bytes") > 0);
  }

  void storageCountersMoveWithFlushesCompactionsAndBloomAnswers() {
    QTemporaryDir dir;
    std::unique_ptr<node::Node> node;
    QVERIFY(node::Node::Open(Small(dir.path()), &node).ok());
    storage::DocStore& store = node->store();
    // Two equal flushes (the second merges the first), then a smaller one beside them: the
    // oldest index's Bloom pages never answer "no" (the size rule), the newer one's can.
    uint64_t next_id = 1;
    for (const uint64_t count : {10, 10, 5}) {
      for (uint64_t i = 0; i < count; ++i) QVERIFY(store.Put(next_id++, "doc").ok());
      QVERIFY(store.Flush().ok());
    }
    // The pager loads Bloom pages on its own thread; a page not loaded answers "maybe".
    bool loaded = false;
    for (int i = 0; i < 1000 && !loaded; ++i) {  // At most about 10 s.
      loaded = store.GetStats().bloom_resident_bytes > 0;
      if (!loaded) std::this_thread::sleep_for(10ms);
    }
    QVERIFY(loaded);
    std::string doc;
    for (uint64_t id = 5000; id < 5020; ++id) QVERIFY(store.Get(id, &doc).IsNotFound());
    const storage::Stats stats = store.GetStats();
    const std::map<std::string, double> s = Samples(Get(*node, "/metrics").body);
    QCOMPARE(s.at("railyard_storage_flushes_total"), 3.0);
    QCOMPARE(s.at("railyard_storage_compactions_total"), double(stats.compactions_done));
    QVERIFY(stats.compactions_done >= 1);
    QCOMPARE(s.at("railyard_storage_compacted_bytes_total"), double(stats.bytes_compacted));
    QVERIFY(stats.bytes_compacted > 0);
    QCOMPARE(s.at("railyard_storage_bloom_negatives_total"), double(stats.bloom_negatives));
    QVERIFY(stats.bloom_negatives > 0);
    QCOMPARE(s.at("railyard_storage_wal_bytes"), double(stats.wal_bytes));
    QCOMPARE(s.at("railyard_storage_indexes"), double(stats.indexes.size()));
  }

  void readyzFollowsStartingServingAndLameDuck() {
    QTemporaryDir dir;
    node::NodeOptions options = Small(dir.path());
    testing::HttpAnswer while_starting;
    testing::HttpAnswer health_while_starting;
    options.on_starting = [&](node::Node& starting) {
      while_starting = Get(starting, "/readyz");
      health_while_starting = Get(starting, "/healthz");
    };
    std::unique_ptr<node::Node> node;
    QVERIFY(node::Node::Open(options, &node).ok());
    QCOMPARE(while_starting.status, 503);
    QVERIFY2(while_starting.body.find("starting") != std::string::npos,
             while_starting.body.c_str());
    QCOMPARE(health_while_starting.status, 200);

    QCOMPARE(Get(*node, "/readyz").status, 200);
    node->server().EnterLameDuck();
    const testing::HttpAnswer lame = Get(*node, "/readyz");
    QCOMPARE(lame.status, 503);
    QVERIFY2(lame.body.find("lame duck") != std::string::npos, lame.body.c_str());
    QCOMPARE(Get(*node, "/healthz").status, 200);
    QCOMPARE(Samples(Get(*node, "/metrics").body).at("railyard_node_state{state=\"lame_duck\"}"),
             1.0);
    node->server().LeaveLameDuck();
    QCOMPARE(Get(*node, "/readyz").status, 200);
  }

  void aReplicaIsNotReadyUntilItReachesItsUpdater() {
    QTemporaryDir dir;
    node::NodeOptions options = Small(dir.path());
    options.replication.replica = true;
    options.replication.follow = "127.0.0.1:" + std::to_string(FreePort());
    options.replication.tokens = {"repl-token"};
    options.replication.serve_unreachable_after = 600s;  // Held in starting for this test.
    std::unique_ptr<node::Node> replica;
    QVERIFY(node::Node::Open(options, &replica).ok());
    const testing::HttpAnswer ready = Get(*replica, "/readyz");
    QCOMPARE(ready.status, 503);
    QVERIFY2(ready.body.find("catching up") != std::string::npos, ready.body.c_str());
    QCOMPARE(Samples(Get(*replica, "/metrics").body).at("railyard_node_state{state=\"starting\"}"),
             1.0);
  }

  void replicationLagAndTheFollowersPoolAreExposedOnBothSides() {
    QTemporaryDir updater_dir, replica_dir;
    node::NodeOptions updater_options = Small(updater_dir.path());
    updater_options.name = "updater";
    updater_options.storage.seal_after = 20ms;  // As railyard-node's default.
    updater_options.replication.tokens = {"repl-token"};
    std::unique_ptr<node::Node> updater;
    QVERIFY(node::Node::Open(updater_options, &updater).ok());
    for (uint64_t id = 1; id <= 100; ++id) QVERIFY(updater->store().Put(id, "doc").ok());
    bool sealed = false;  // The open block is sealed (visible to replicas) shortly after.
    for (int i = 0; i < 1000 && !sealed; ++i) {
      sealed = updater->Snapshot().replication().head_position() > 0;
      if (!sealed) std::this_thread::sleep_for(10ms);
    }
    QVERIFY(sealed);

    node::NodeOptions replica_options = Small(replica_dir.path());
    replica_options.name = "replica";
    replica_options.replication.replica = true;
    replica_options.replication.follow = updater->endpoint().ToString();
    replica_options.replication.tokens = {"repl-token"};
    std::unique_ptr<node::Node> replica;
    QVERIFY(node::Node::Open(replica_options, &replica).ok());
    bool ready = false;
    for (int i = 0; i < 1000 && !ready; ++i) {  // At most about 10 s.
      ready = Get(*replica, "/readyz").status == 200;
      if (!ready) std::this_thread::sleep_for(10ms);
    }
    QVERIFY(ready);

    // Its lag is as of its last fetch: the one that brought the documents counts them, the next
    // (at the head, within the 2 s long poll) says 0.
    std::string text;
    bool caught_up = false;
    for (int i = 0; i < 1000 && !caught_up; ++i) {  // At most about 10 s.
      text = Get(*replica, "/metrics").body;
      caught_up = Samples(text).at("railyard_replication_lag_records") == 0;
      if (!caught_up) std::this_thread::sleep_for(10ms);
    }
    QVERIFY(caught_up);
    const auto [code, said] = Promtool(text);
    QVERIFY2(code == 0 && said.trimmed().isEmpty(), qPrintable(said));
    const std::map<std::string, double> r = Samples(text);
    QCOMPARE(r.at("railyard_replication_state{state=\"REPLICA_TAILING\"}"), 1.0);
    QCOMPARE(r.at("railyard_replication_lag_bytes"), 0.0);
    QVERIFY(r.at("railyard_replication_applied_position") > 0);
    const admin::Telemetry t = replica->Snapshot();
    QCOMPARE(t.pools_size(), 1);
    const std::string client = t.pools(0).client_name();
    QCOMPARE(r.at("railyard_client_pool_capacity{client=\"" + client + "\"}"),
             double(t.pools(0).capacity()));
    QVERIFY(r.at("railyard_client_requests_total{client=\"" + client + "\"}") > 0);

    // The updater knows its replica (by name) once the replica has fetched.
    bool known = false;
    for (int i = 0; i < 1000 && !known; ++i) {
      known = Samples(Get(*updater, "/metrics").body)
                  .count("railyard_replica_lag_records{replica=\"replica\"}") == 1;
      if (!known) std::this_thread::sleep_for(10ms);
    }
    QVERIFY(known);
    const auto [updater_code, updater_said] = Promtool(Get(*updater, "/metrics").body);
    QVERIFY2(updater_code == 0 && updater_said.trimmed().isEmpty(), qPrintable(updater_said));
    replica->Shutdown(0ms);
    updater->Shutdown(0ms);
  }

  void bearerTokenGuardsMetrics() {
    QTemporaryDir dir;
    node::NodeOptions options = Small(dir.path());
    options.monitoring->tokens = {"scrape-secret"};
    std::unique_ptr<node::Node> node;
    QVERIFY(node::Node::Open(options, &node).ok());
    QCOMPARE(Get(*node, "/metrics").status, 401);
    QCOMPARE(Get(*node, "/metrics", "Authorization: Bearer wrong\r\n").status, 401);
    QCOMPARE(Get(*node, "/metrics", "Authorization: Basic c2NyYXBlLXNlY3JldA==\r\n").status, 401);
    const testing::HttpAnswer right =
        Get(*node, "/metrics", "Authorization: Bearer scrape-secret\r\n");
    QCOMPARE(right.status, 200);
    QVERIFY(right.body.find("railyard_node_info") != std::string::npos);
    QCOMPARE(Get(*node, "/healthz").status, 200);  // Health checks need no token.
  }

  void sighupReloadsTheMetricsTokenFile() {
    QTemporaryDir dir;
    const QString file = dir.filePath("metrics.tokens");
    auto write = [&](const char* text) {
      QFile f(file);
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write(text);
    };
    write("old-secret\n");
    config::NodeConfig c;
    c.set_data_dir(dir.filePath("data").toStdString());
    c.set_metrics_listen("127.0.0.1:0");
    c.set_metrics_token_file(file.toStdString());
    node::NodeOptions options;
    QVERIFY(node::NodeOptionsFrom(c, &options).ok());
    std::unique_ptr<node::Node> node;
    QVERIFY(node::Node::Open(options, &node).ok());
    node::TokenReloader reloader(c, *node, {}, {});
    QCOMPARE(Get(*node, "/metrics", "Authorization: Bearer old-secret\r\n").status, 200);

    write("new-secret\n");
    reloader.Reload();
    QCOMPARE(Get(*node, "/metrics", "Authorization: Bearer new-secret\r\n").status, 200);
    QCOMPARE(Get(*node, "/metrics", "Authorization: Bearer old-secret\r\n").status, 401);

    write("");  // A half-written edit: the node keeps the tokens it had.
    reloader.Reload();
    QCOMPARE(Get(*node, "/metrics", "Authorization: Bearer new-secret\r\n").status, 200);
    QCOMPARE(Get(*node, "/metrics").status, 401);
  }

  void tlsWhenConfigured() {
    QTemporaryDir dir;
    const rpc::testing::TlsTestFiles files =
        rpc::testing::MakeTlsTestFiles(dir_.path().toStdString());
    node::NodeOptions options = Small(dir.path());
    options.monitoring->tls = rpc::TlsServerOptions{files.server_cert, files.server_key, "", false};
    std::unique_ptr<node::Node> node;
    const rpc::Status opened = node::Node::Open(options, &node);
    QVERIFY2(opened.ok(), opened.ToString().c_str());
    const rpc::Endpoint e = *node->monitoring_endpoint();
    const testing::HttpAnswer secure = HttpGet(e.host, e.port, "/metrics", {}, files.ca_cert);
    QCOMPARE(secure.status, 200);
    QVERIFY(secure.body.find("railyard_node_info") != std::string::npos);
    QCOMPARE(HttpGet(e.host, e.port, "/healthz").status, 0);  // Plain HTTP gets no answer.
  }

  void malformedAndUnknownRequestsAreAnsweredClearly() {
    QTemporaryDir dir;
    std::unique_ptr<node::Node> node;
    QVERIFY(node::Node::Open(Small(dir.path()), &node).ok());
    const rpc::Endpoint e = *node->monitoring_endpoint();
    QCOMPARE(testing::HttpExchange(e.host, e.port, "hello there\r\n\r\n").status, 400);
    QCOMPARE(testing::HttpExchange(e.host, e.port, "GET metrics HTTP/1.1\r\n\r\n").status, 400);
    QCOMPARE(testing::HttpExchange(e.host, e.port, "GET / SPDY/3\r\n\r\n").status, 400);
    QCOMPARE(testing::HttpExchange(e.host, e.port, "GET / HTTP/1.1\r\nno colon\r\n\r\n").status,
             400);
    const std::string huge = "GET /" + std::string(10000, 'a') + " HTTP/1.1\r\n\r\n";
    QCOMPARE(testing::HttpExchange(e.host, e.port, huge).status, 400);
    const testing::HttpAnswer post =
        testing::HttpExchange(e.host, e.port, "POST /metrics HTTP/1.1\r\n\r\n");
    QCOMPARE(post.status, 405);
    QVERIFY2(post.head.find("Allow: GET, HEAD") != std::string::npos, post.head.c_str());
    QCOMPARE(HttpGet(e.host, e.port, "/nope").status, 404);
    QCOMPARE(HttpGet(e.host, e.port, "/metrics?x=1").status, 200);
    const testing::HttpAnswer head =
        testing::HttpExchange(e.host, e.port, "HEAD /healthz HTTP/1.0\r\n\r\n");
    QCOMPARE(head.status, 200);
    QVERIFY(head.body.empty());
  }

  // An operator who gives the console or railyardctl the metrics port instead of the admin port
  // is told that the port speaks HTTP; it read "frame of 1213486160 bytes exceeds the limit".
  void aBoxcarClientOnTheMetricsPortIsToldItSpeaksHttp() {
    QTemporaryDir dir;
    std::unique_ptr<node::Node> node;
    QVERIFY(node::Node::Open(Small(dir.path()), &node).ok());
    rpc::ClientOptions options;
    options.servers.push_back(*node->monitoring_endpoint());
    options.pool_size = 1;
    options.connect_timeout = std::chrono::milliseconds(5000);
    rpc::Client client(options);
    QVERIFY(client.Start().ok());
    std::string why;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (why.empty() && std::chrono::steady_clock::now() < until) {
      why = client.Snapshot().last_connect_failure;
      if (why.empty()) QThread::msleep(20);
    }
    QVERIFY2(why.find("speaks HTTP, not Boxcar") != std::string::npos, why.c_str());
    QVERIFY2(why.find("exceeds the limit") == std::string::npos, why.c_str());
    client.Stop();
  }

  void configFieldsBecomeMonitoringOptions() {
    config::NodeConfig c;
    c.set_data_dir("/tmp/unused");
    node::NodeOptions o;
    QVERIFY(node::NodeOptionsFrom(c, &o).ok());
    QVERIFY(!o.monitoring);  // Off unless asked for.

    const QString tokens = dir_.filePath("metrics.tokens");
    {
      QFile f(tokens);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("first\nsecond\n");
    }
    c.set_metrics_listen("127.0.0.1:7002");
    c.set_metrics_token_file(tokens.toStdString());
    QVERIFY(node::NodeOptionsFrom(c, &o).ok());
    QVERIFY(o.monitoring);
    QCOMPARE(o.monitoring->host, std::string("127.0.0.1"));
    QCOMPARE(o.monitoring->port, uint16_t{7002});
    QCOMPARE(o.monitoring->tokens, (std::vector<std::string>{"first", "second"}));
    QVERIFY(!o.monitoring->tls);

    c.set_metrics_listen("nonsense");
    QCOMPARE(node::NodeOptionsFrom(c, &o).code(), rpc::Code::kInvalidArgument);
    c.clear_metrics_listen();
    QCOMPARE(node::NodeOptionsFrom(c, &o).code(), rpc::Code::kInvalidArgument);  // A token alone.
  }

  void requestHeadParsing() {
    http::HttpRequest r;
    std::string error;
    QVERIFY(http::ParseRequestHead(
        "GET /metrics?a=b HTTP/1.1\r\nHost: x\r\nauthorization:  Bearer t \r\n", &r, &error));
    QCOMPARE(r.method, std::string("GET"));
    QCOMPARE(r.path, std::string("/metrics"));
    QCOMPARE(r.query, std::string("a=b"));
    QCOMPARE(r.authorization, std::string("Bearer t"));
    QVERIFY(!http::ParseRequestHead("GET /\x01 HTTP/1.1\r\n", &r, &error));
  }

 private:
  QTemporaryDir dir_;
};

RAILYARD_QTEST_GUILESS_MAIN(MonitoringTest)
#include "tst_monitoring.moc"
