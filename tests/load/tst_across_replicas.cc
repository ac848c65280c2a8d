// SPDX-License-Identifier: Apache-2.0
// The load tools against an updater and two replicas (the demo cluster's real railyard-node
// processes, without its load clients): `railyardctl load --verify` writes to the updater, reads
// over all three and finds nothing lost or stale; afterwards every node holds exactly the
// updater's documents. A write sent straight to a replica is refused, naming the updater, and a
// read carrying a write's position finds that write on a replica.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>
#include <map>

#include "core/cluster/admin_client.h"
#include "core/load/demo_cluster.h"
#include "core/rpc/client.h"
#include "railyard/docservice.pb.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

using namespace railyard;

namespace {

constexpr uint64_t kKeys = 2000;

// Runs railyardctl with `args` (bounded); its exit code, with stdout and stderr in `out`.
int Ctl(const QStringList& args, QString* out) {
  QProcess process;
  process.start(BuiltProgram("railyardctl"), args);
  if (!process.waitForFinished(60000)) {
    process.kill();
    process.waitForFinished(5000);
    return -1;
  }
  *out = QString::fromUtf8(process.readAllStandardOutput()) +
         QString::fromUtf8(process.readAllStandardError());
  return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

// The last line of `out` that is a JSON object with `key` == `value`.
QJsonObject JsonLine(const QString& out, const QString& key, const QString& value) {
  QJsonObject found;
  for (const QString& line : out.split('\n')) {
    const QJsonObject o = QJsonDocument::fromJson(line.toUtf8()).object();
    if (o[key].toString() == value) found = o;
  }
  return found;
}

// A client of one docservice of the demo, presenting its writer token.
std::unique_ptr<rpc::Client> ClientOf(const load::DemoCluster& demo, const rpc::Endpoint& service) {
  rpc::ClientOptions options;
  options.servers = {service};
  options.pool_size = 2;
  options.client_name = "across-replicas-test";
  options.credentials = demo.data_token();
  auto client = std::make_unique<rpc::Client>(options);
  if (!client->Start().ok() || !client->WaitForPool(1, std::chrono::seconds(20))) return nullptr;
  return client;
}

// Calls of `method` that `node` has handled, from its telemetry (open: the demo sets no token);
// 0 if it cannot be had.
uint64_t Handled(const load::DemoNode& node, const std::string& method) {
  cluster::AdminClient admin(node.admin, "", "across-replicas-test");
  admin::Telemetry t;
  if (!admin.Connect(std::chrono::seconds(5)).ok() || !admin.Telemetry(&t).ok()) return 0;
  for (const admin::MethodStats& m : t.throughput().methods()) {
    if (m.method() == method) return m.requests();
  }
  return 0;
}

// Writes a marker document (outside the load's ids) to the updater and returns the position it
// reached: a replica that has applied it holds every write acknowledged before it.
uint64_t MarkerPosition(rpc::Client& updater) {
  doc::PutRequest put;
  put.set_id(kKeys + 1);
  put.set_doc("marker");
  const rpc::CallResult written = updater.Call("doc.Put", put.SerializeAsString());
  doc::PutResponse ack;
  return written.status.ok() && ack.ParseFromString(written.payload) ? ack.position() : 0;
}

// Every document in [0, kKeys) on `node`, once it has applied `position`: id -> document.
bool ReadAll(rpc::Client& node, uint64_t position, std::map<uint64_t, std::string>* docs) {
  for (uint64_t first = 0; first < kKeys; first += 200) {
    doc::BatchGetRequest batch;
    for (uint64_t id = first; id < std::min(kKeys, first + 200); ++id) batch.add_ids(id);
    batch.set_min_position(position);
    const rpc::CallResult result =
        node.Call("doc.BatchGet", batch.SerializeAsString(), std::chrono::seconds(10));
    doc::BatchGetResponse response;
    if (!result.status.ok() || !response.ParseFromString(result.payload)) return false;
    for (const auto& item : response.items()) {
      if (!item.error().empty()) return false;
      if (item.found()) (*docs)[item.id()] = item.doc();
    }
  }
  return true;
}

}  // namespace

class AcrossReplicasTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void init() {
    load::DemoClusterOptions options;  // An updater and two replicas.
    options.clients = 0;
    options.node_binary = BuiltProgram("railyard-node");
    const rpc::Status started = demo_.Start(options);
    QVERIFY2(started.ok(), started.ToString().c_str());
    QCOMPARE(demo_.nodes().size(), size_t{3});
  }
  void cleanup() { demo_.Stop(); }

  void verifyingLoadRunsCleanAndEveryNodeHoldsEveryDocument() {
    const auto& nodes = demo_.nodes();
    const QString updater = QString::fromStdString(nodes[0].service.ToString());
    QStringList read;
    for (const load::DemoNode& n : nodes) read << QString::fromStdString(n.service.ToString());
    // At least 3 s of load, and on until the nodes have served enough of it for the figures
    // below (a loaded machine takes longer); then SIGTERM, which the load answers with its last
    // check and its summary.
    QProcess verify;
    verify.start(BuiltProgram("railyardctl"),
                 {"load", "--updater", updater, "--read", read.join(','), "--verify", "--json",
                  "--data-token-file", QString::fromStdString(demo_.DataTokenFile()),
                  "--duration-s", "120", "--keys", QString::number(kKeys), "--concurrency", "4"});
    QVERIFY(verify.waitForStarted(10000));
    QTest::qWait(3000);
    const auto gets = [&] {
      uint64_t all = 0;
      for (const load::DemoNode& n : nodes) all += Handled(n, "doc.Get");
      return all;
    };
    QTRY_VERIFY_WITH_TIMEOUT(verify.state() == QProcess::NotRunning ||
                                 (Handled(nodes[0], "doc.Put") > 600 && gets() > 200),
                             60000);
    verify.terminate();
    if (!verify.waitForFinished(60000)) {
      verify.kill();
      verify.waitForFinished(5000);
    }
    const QString out = QString::fromUtf8(verify.readAllStandardOutput()) +
                        QString::fromUtf8(verify.readAllStandardError());
    const int rc = verify.exitStatus() == QProcess::NormalExit ? verify.exitCode() : -1;
    QVERIFY2(rc == 0, qPrintable(out.right(1500)));
    const QJsonObject summary = JsonLine(out, "verify", "summary");
    QVERIFY2(!summary.isEmpty(), qPrintable(out.right(1500)));
    QVERIFY(summary["writes_acked"].toDouble() > 500);
    QVERIFY(summary["deletes_acked"].toDouble() > 0);
    QCOMPARE(summary["lost"].toDouble(), 0.0);
    QCOMPARE(summary["wrong"].toDouble(), 0.0);
    QCOMPARE(summary["stale_reads"].toDouble(), 0.0);
    QVERIFY(summary["reads_checked"].toDouble() > 100);
    QCOMPARE(summary["nodes"].toDouble(), 3.0);  // The last check read every node directly.
    QVERIFY(summary["last_round_complete"].toBool());

    // Independently of the tool: once it has applied a write made after the load, each replica
    // holds exactly the updater's documents (deleted ones gone).
    std::map<uint64_t, std::string> expected;
    auto updater_client = ClientOf(demo_, nodes[0].service);
    QVERIFY(updater_client);
    const uint64_t head = MarkerPosition(*updater_client);
    QVERIFY(head > 0);
    QVERIFY(ReadAll(*updater_client, 0, &expected));
    QVERIFY(expected.size() > 100);
    QVERIFY(expected.size() < kKeys);  // Some were deleted (or never written).
    for (size_t i = 1; i < nodes.size(); ++i) {
      auto replica = ClientOf(demo_, nodes[i].service);
      QVERIFY(replica);
      std::map<uint64_t, std::string> held;
      QVERIFY(ReadAll(*replica, head, &held));
      size_t differ = 0;
      std::string first;
      for (uint64_t id = 0; id < kKeys; ++id) {
        const auto a = expected.find(id), b = held.find(id);
        const bool same = (a == expected.end()) == (b == held.end()) &&
                          (a == expected.end() || a->second == b->second);
        if (!same && differ++ == 0) {
          first = "id " + std::to_string(id) + ": updater " +
                  (a == expected.end() ? "absent" : a->second.substr(0, 12)) + ", " +
                  nodes[i].name + " " + (b == held.end() ? "absent" : b->second.substr(0, 12));
        }
      }
      QVERIFY2(differ == 0, (std::to_string(differ) + " documents differ; first " + first).c_str());
    }
  }

  void loadByClusterFileWritesToTheUpdaterAndReadsEverywhere() {
    QString out;
    QCOMPARE(Ctl({"load", "--cluster", QString::fromStdString(demo_.ClusterFile()), "--json",
                  "--data-token-file", QString::fromStdString(demo_.DataTokenFile()),
                  "--duration-s", "1.5", "--keys", "300", "--read-fraction", "0.7"},
                 &out),
             0);
    const QJsonObject summary = JsonLine(out, "load", "summary");
    QCOMPARE(summary["errors"].toDouble(), 0.0);
    QVERIFY(summary["reads_with_position"].toDouble() > 0);
    const QJsonArray nodes = summary["nodes"].toArray();
    QCOMPARE(nodes.size(), 3);
    // The updater's lowest slots are the write client's, so Boxcar sends reads to the replicas
    // first; each replica serves some.
    for (const QJsonValue& value : nodes) {
      const QJsonObject n = value.toObject();
      if (n["role"].toString() == "updater") {
        QVERIFY(n["writes"].toDouble() > 0);
      } else {
        QCOMPARE(n["role"].toString(), QString("replica"));
        QVERIFY(n["reads"].toDouble() > 0);
        QCOMPARE(n["writes"].toDouble(), 0.0);
      }
    }
    // The old single-server form, given all three, says what is wrong instead of writing to
    // replicas.
    QStringList args{"load", "--duration-s", "1"};
    for (const load::DemoNode& n : demo_.nodes()) {
      args << "-s" << QString::fromStdString(n.service.ToString());
    }
    QCOMPARE(Ctl(args, &out), 2);
    QVERIFY2(out.contains("writes would go to 3 servers") && out.contains("--updater"),
             qPrintable(out));
  }

  void aWriteToAReplicaIsRefusedNamingTheUpdater() {
    const std::string updater = demo_.nodes()[0].service.ToString();
    auto replica = ClientOf(demo_, demo_.nodes()[1].service);
    QVERIFY(replica);
    doc::PutRequest put;
    put.set_id(7);
    put.set_doc("not here");
    const rpc::CallResult refused = replica->Call("doc.Put", put.SerializeAsString());
    QCOMPARE(refused.status.code(), rpc::Code::kFailedPrecondition);
    QVERIFY2(refused.status.message().find(updater) != std::string::npos,
             refused.status.message().c_str());
    QCOMPARE(refused.attempts, 1);  // Never retried.
    doc::DeleteRequest del;
    del.set_id(7);
    QCOMPARE(replica->Call("doc.Delete", del.SerializeAsString()).status.code(),
             rpc::Code::kFailedPrecondition);

    // The same write sent to the updater is found on the replica by a read carrying its position.
    auto writer = ClientOf(demo_, demo_.nodes()[0].service);
    QVERIFY(writer);
    put.set_doc("written to the updater");
    const rpc::CallResult written = writer->Call("doc.Put", put.SerializeAsString());
    QVERIFY2(written.status.ok(), written.status.ToString().c_str());
    doc::PutResponse ack;
    QVERIFY(ack.ParseFromString(written.payload));
    QVERIFY(ack.position() > 0);
    doc::GetRequest get;
    get.set_id(7);
    get.set_min_position(ack.position());
    const rpc::CallResult read =
        replica->Call("doc.Get", get.SerializeAsString(), std::chrono::seconds(10));
    QVERIFY2(read.status.ok(), read.status.ToString().c_str());
    doc::GetResponse response;
    QVERIFY(response.ParseFromString(read.payload));
    QCOMPARE(response.doc(), std::string("written to the updater"));
  }

 private:
  load::DemoCluster demo_;
};

RAILYARD_QTEST_GUILESS_MAIN(AcrossReplicasTest)
#include "tst_across_replicas.moc"
