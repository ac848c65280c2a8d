// SPDX-License-Identifier: Apache-2.0
// Slow: a real Prometheus (Debian's binary) on loopback scrapes a node under load every second
// with a bearer token from a credentials file; once the load stops, the series it stored, read
// back through its HTTP API (/api/v1/query), equal exactly what the node's telemetry shows.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <cmath>
#include <thread>

#include "core/node/node.h"
#include "core/rpc/client.h"
#include "railyard/docservice.pb.h"
#include "tests/support/free_port.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/qtest_main.h"

using namespace railyard;
using namespace std::chrono_literals;

class PrometheusScrapeTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void prometheusStoresWhatTelemetryShows() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    {
      QFile token(dir.filePath("scrape.token"));
      QVERIFY(token.open(QIODevice::WriteOnly));
      token.write("scrape-secret\n");
    }
    node::NodeOptions options;
    options.name = "scraped";
    options.data_dir = dir.filePath("data").toStdString();
    options.io_threads = 1;
    options.worker_threads = 2;
    options.monitoring = node::MonitoringOptions{};
    options.monitoring->tokens = {"scrape-secret"};
    std::unique_ptr<node::Node> node;
    QVERIFY(node::Node::Open(options, &node).ok());

    testing::PrometheusProcess prometheus;  // Stopped by its PID when the test ends.
    testing::PrometheusConfig config;
    config.targets = {QString::fromStdString(node->monitoring_endpoint()->ToString())};
    config.job_lines = QStringLiteral(
                           "    authorization:\n"
                           "      credentials_file: %1\n")
                           .arg(dir.filePath("scrape.token"));
    QString error;
    QVERIFY2(prometheus.Start(dir.path(), config, &error), qPrintable(error));

    // Load while Prometheus scrapes: puts and misses from a real client until Prometheus holds
    // at least two samples of the put counter taken under load (bounded: about 20 s at most).
    rpc::ClientOptions client_options;
    client_options.servers = {node->endpoint()};
    client_options.pool_size = 2;
    rpc::Client client(client_options);
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(1, 10s));
    const QString put_count = "railyard_requests_total{method=\"doc.Put\",code=\"OK\"}";
    bool scraped_under_load = false;
    for (int i = 0; i < 20000 && !scraped_under_load; ++i) {
      doc::PutRequest put;
      put.set_id(static_cast<uint64_t>(i % 500 + 1));
      put.set_doc("document " + std::to_string(i));
      QVERIFY(client.Call("doc.Put", put.SerializeAsString()).status.ok());
      doc::GetRequest get;
      get.set_id(static_cast<uint64_t>(100000 + i));
      QCOMPARE(client.Call("doc.Get", get.SerializeAsString()).status.code(), rpc::Code::kNotFound);
      std::this_thread::sleep_for(1ms);
      if (i % 100 == 99) {
        const auto samples = prometheus.Sample("count_over_time(" + put_count + "[1m])");
        scraped_under_load = samples && samples->second >= 2;
      }
    }
    QVERIFY2(scraped_under_load, "Prometheus did not scrape the node twice under load");

    // Quiesced: every call was answered. Wait for a scrape that began after this point.
    const admin::Telemetry t = node->Snapshot();
    const double quiet_since = static_cast<double>(t.unix_ms()) / 1e3;
    bool scraped_after = false;
    for (int i = 0; i < 300 && !scraped_after; ++i) {  // At most about 30 s.
      const auto last = prometheus.Sample("timestamp(railyard_storage_writes_total)");
      scraped_after = last && last->second > quiet_since + 0.01;
      if (!scraped_after) std::this_thread::sleep_for(100ms);
    }
    QVERIFY2(scraped_after, "Prometheus did not scrape the node within 30 s");

    std::map<std::string, uint64_t> requests;
    for (const auto& m : t.throughput().methods()) requests[m.method()] = m.requests();
    QVERIFY(requests.at("doc.Put") > 0);
    // Compared as doubles (Value is NaN when a series is missing); counts this size are exact.
    const auto D = [](uint64_t v) { return static_cast<double>(v); };
    QCOMPARE(prometheus.Value(put_count), D(requests.at("doc.Put")));
    QCOMPARE(prometheus.Value("railyard_requests_total{method=\"doc.Get\",code=\"NOT_FOUND\"}"),
             D(requests.at("doc.Get")));
    QCOMPARE(prometheus.Value("railyard_request_duration_seconds_count{method=\"doc.Put\"}"),
             D(requests.at("doc.Put")));
    QCOMPARE(prometheus.Value("railyard_storage_writes_total"), D(t.storage().writes()));
    QCOMPARE(prometheus.Value("railyard_storage_reads_total"), D(t.storage().reads()));
    QCOMPARE(prometheus.Value("railyard_node_state{state=\"serving\"}"), 1.0);
    QCOMPARE(prometheus.Value("railyard_connections"), D(t.slots_size()));
    // A quantile Prometheus computes from the buckets, as the dashboard does.
    const auto p99 = prometheus.Sample(
        "histogram_quantile(0.99, sum by (le) (rate("
        "railyard_request_duration_seconds_bucket{method=\"doc.Put\"}[1m])))");
    QVERIFY(p99 && p99->second > 0 && p99->second < 5);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(PrometheusScrapeTest)
#include "tst_prometheus_scrape.moc"
