// SPDX-License-Identifier: Apache-2.0
// A node whose disk fills up refuses writes with a clear status, keeps serving reads, and takes
// writes again once space comes back: the docstore under a FaultInjectingEnv, served over Boxcar
// on loopback. A failed fsync of the log shows in telemetry, /metrics and the alert figure.
#include <QTemporaryDir>
#include <QTest>

#include "core/cluster/alert_evaluator.h"
#include "core/node/node.h"
#include "core/node/node_metrics.h"
#include "core/rpc/client.h"
#include "railyard/docservice.pb.h"
#include "storage/fault_env.h"
#include "storage/filenames.h"
#include "tests/support/qtest_main.h"

using namespace railyard;

namespace {

std::string PutPayload(uint64_t id) {
  doc::PutRequest put;
  put.set_id(id);
  put.set_doc("document " + std::to_string(id) + std::string(200, 'x'));
  return put.SerializeAsString();
}

std::string GetPayload(uint64_t id) {
  doc::GetRequest get;
  get.set_id(id);
  return get.SerializeAsString();
}

}  // namespace

class DiskFullTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // A failed fsync of the log: the node's telemetry says why it refuses writes, its /metrics
  // has railyard_storage_writes_refused 1, and the alert rule's figure holds; its disk space is
  // in telemetry for the disk rules.
  void aFailedFsyncIsInTelemetryMetricsAndTheAlertFigure() {
    QTemporaryDir dir;
    storage::FaultInjectingEnv env;
    node::NodeOptions options;
    options.name = "unsynced";
    options.data_dir = dir.path().toStdString();
    options.storage.env = &env;
    options.storage.sync = storage::SyncPolicy::kEveryWrite;
    options.storage.logger = [](storage::LogLevel, std::string_view) {};
    std::unique_ptr<node::Node> node;
    QVERIFY(node::Node::Open(options, &node).ok());
    rpc::ClientOptions client_options;
    client_options.servers = {node->endpoint()};
    rpc::Client client(client_options);
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(1, std::chrono::seconds(5)));
    QVERIFY(client.Call("doc.Put", PutPayload(1)).status.ok());
    admin::Telemetry t = node->Snapshot();
    QVERIFY(t.storage().writes_refused().empty());
    QVERIFY(t.has_disk() && t.disk().size_bytes() > 0 && t.disk().free_bytes() > 0);
    const std::optional<double> share =
        cluster::AlertFigure(alerts::DISK_FREE_SHARE, {0, true, &t});
    QVERIFY(share && *share > 0 && *share <= 1);
    QCOMPARE(*cluster::AlertFigure(alerts::WRITES_REFUSED, {0, true, &t}), 0.0);

    env.Inject({.op = storage::FaultInjectingEnv::Op::kSync, .path_contains = storage::kWalSuffix});
    QVERIFY(!client.Call("doc.Put", PutPayload(2)).status.ok());
    t = node->Snapshot();
    QVERIFY2(t.storage().writes_refused().find("fsync") != std::string::npos,
             t.storage().writes_refused().c_str());
    QCOMPARE(*cluster::AlertFigure(alerts::WRITES_REFUSED, {0, true, &t}), 1.0);
    node::NodeMetricsInput metrics;
    metrics.telemetry = t;
    QVERIFY(node::RenderNodeMetrics(metrics).find("\nrailyard_storage_writes_refused 1\n") !=
            std::string::npos);
    // Reads go on.
    QVERIFY(client.Call("doc.Get", GetPayload(1)).status.ok());
  }

  void refusesWritesKeepsReads() {
    QTemporaryDir dir;
    storage::FaultInjectingEnv env;
    node::NodeOptions options;
    options.name = "full";
    options.data_dir = dir.path().toStdString();
    options.storage.env = &env;
    options.storage.memtable_entries = 500;
    options.storage.logger = [](storage::LogLevel, std::string_view) {};
    std::unique_ptr<node::Node> node;
    QVERIFY(node::Node::Open(options, &node).ok());

    rpc::ClientOptions client_options;
    client_options.servers = {node->endpoint()};
    client_options.pool_size = 2;
    rpc::Client client(client_options);
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(1, std::chrono::seconds(5)));

    std::vector<uint64_t> acked;
    for (uint64_t id = 0; id < 100; ++id) {
      QVERIFY(client.Call("doc.Put", PutPayload(id)).status.ok());
      acked.push_back(id);
    }
    env.SetSpaceLimit(32 * 1024);
    rpc::Status refusal;
    for (uint64_t id = 100; id < 5000 && refusal.ok(); ++id) {
      const rpc::CallResult result = client.Call("doc.Put", PutPayload(id));
      if (result.status.ok()) acked.push_back(id);
      refusal = result.status;
    }
    QCOMPARE(refusal.code(), rpc::Code::kResourceExhausted);
    QVERIFY2(refusal.message().find("disk full") != std::string::npos, refusal.message().c_str());
    // Still refusing, and still serving every acknowledged document.
    QCOMPARE(client.Call("doc.Put", PutPayload(7000)).status.code(), rpc::Code::kResourceExhausted);
    for (uint64_t id : acked) {
      const rpc::CallResult result = client.Call("doc.Get", GetPayload(id));
      QVERIFY2(result.status.ok(), result.status.ToString().c_str());
      doc::GetResponse response;
      QVERIFY(response.ParseFromString(result.payload));
      QCOMPARE(response.doc(), "document " + std::to_string(id) + std::string(200, 'x'));
    }
    // Space is back: writes succeed again (the background retries a failed index write).
    env.Heal();
    QTRY_VERIFY_WITH_TIMEOUT(client.Call("doc.Put", PutPayload(8000)).status.ok(), 10000);
    client.Stop();
    node->Shutdown(std::chrono::seconds(1));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(DiskFullTest)
#include "tst_disk_full.moc"
