// SPDX-License-Identifier: Apache-2.0
// `railyardctl load --admin-listen` as a console sees it, with real processes: its telemetry
// carries the client's own figures (rate, POOL_EXHAUSTED rejections, client-seen latency) under
// a real load on a real node, and its admin service takes tokens as a node's does: the token
// files it was given, or, with none, any caller whatever token it presents (bug B21). With an
// updater and a replica, its read and write clients are one pool (one identity).
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "core/cluster/admin_client.h"
#include "core/node/node.h"
#include "tests/support/admin_tokens.h"
#include "tests/support/load_process.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"
#include "tests/support/wait_until.h"

using railyard::testing::BuiltProgram;
using railyard::testing::kOperatorToken;
using railyard::testing::kViewerToken;
using railyard::testing::LoadProcess;
using railyard::testing::WaitUntil;
using namespace std::chrono_literals;

using namespace railyard;

namespace {

constexpr char kReplication[] = "load-telemetry-replication";

// A load of many callers on a pool of one connection, so POOL_EXHAUSTED happens all the time.
QStringList CrowdedPool(uint16_t service_port) {
  return {"-s", QString("127.0.0.1:%1").arg(service_port), "--pool-size", "1", "--concurrency",
          "16"};
}

// The load client's telemetry answer to `token`, or why it was refused.
rpc::Status Ask(const LoadProcess& load, const std::string& token, admin::Telemetry* telemetry) {
  cluster::AdminClient client({"127.0.0.1", load.admin_port()}, token, "tst_load_telemetry");
  if (rpc::Status s = client.Connect(std::chrono::seconds(5)); !s.ok()) return s;
  return client.Telemetry(telemetry);
}

}  // namespace

class LoadTelemetryTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    node::NodeOptions options;
    options.name = "load-target";
    options.data_dir = dir_.filePath("node").toStdString();
    options.io_threads = 1;
    options.worker_threads = 2;
    QVERIFY(node::Node::Open(options, &node_).ok());
    for (const auto& [name, token] :
         {std::pair{"viewer.token", kViewerToken}, std::pair{"operator.token", kOperatorToken}}) {
      QFile file(dir_.filePath(name));
      QVERIFY(file.open(QIODevice::WriteOnly));
      file.write(QByteArray(token) + "\n");
    }
  }

  void cleanupTestCase() {
    if (node_) node_->Shutdown(std::chrono::milliseconds(200));
    node_.reset();
  }

  // Without token files the service is open: no token, and any token, are both let in.
  void openEndpointAcceptsAnyTokenAndReportsClientFigures() {
    LoadProcess load;
    QVERIFY(load.Start(CrowdedPool(node_->endpoint().port), 120));
    admin::Telemetry t;
    for (const std::string token : {"", kOperatorToken, "a token this process never heard of"}) {
      const rpc::Status s = Ask(load, token, &t);
      QVERIFY2(s.ok(), qPrintable(QString::fromStdString(token + ": " + s.ToString())));
      QCOMPARE(t.role(), admin::ROLE_CLIENT);
    }
    // The client's own figures arrive: calls made, POOL_EXHAUSTED refusals, client-seen p99.
    QVERIFY2(WaitUntil(
                 [&] {
                   return Ask(load, "", &t).ok() && t.pools_size() == 1 &&
                          t.pools(0).throughput().requests_per_s() > 0 &&
                          t.pools(0).throughput().rejections_per_s() > 0 &&
                          t.pools(0).throughput().p99_us() > 0;
                 },
                 20s, 50ms),
             qPrintable(QString::fromStdString(t.ShortDebugString())));
    const admin::ClientThroughput& figures = t.pools(0).throughput();
    QVERIFY(figures.max_us() >= figures.p99_us() && figures.p99_us() >= figures.p50_us());
    QVERIFY(t.pools(0).counters().rejections() > 0);
  }

  // With token files it behaves as a node's admin service: their tokens, and nothing else.
  void tokenFilesAreHonoured() {
    LoadProcess load;
    QVERIFY(
        load.Start(CrowdedPool(node_->endpoint().port) +
                       QStringList{"--admin-viewer-token-file", dir_.filePath("viewer.token"),
                                   "--admin-operator-token-file", dir_.filePath("operator.token")},
                   120));
    admin::Telemetry t;
    QVERIFY(Ask(load, kOperatorToken, &t).ok());
    QCOMPARE(t.role(), admin::ROLE_CLIENT);
    QVERIFY(Ask(load, kViewerToken, &t).ok());
    QCOMPARE(Ask(load, "", &t).code(), rpc::Code::kUnauthenticated);
    QCOMPARE(Ask(load, "wrong", &t).code(), rpc::Code::kUnauthenticated);
  }

  // With an updater, the load runs a write client beside its read client, with the same client
  // id; its telemetry reported the read pool only, so the writes' figures were nowhere. Now both
  // are one pool: one identity, each connection listed once, the figures of both.
  void readAndWritePoolsAreOneIdentity() {
    auto open = [this](const char* name, const std::string& follow) {
      node::NodeOptions options;
      options.name = name;
      options.data_dir = dir_.filePath(name).toStdString();
      options.io_threads = 1;
      options.worker_threads = 2;
      options.replication.replica = !follow.empty();
      options.replication.follow = follow;
      options.replication.tokens = {kReplication};
      std::unique_ptr<node::Node> node;
      return node::Node::Open(options, &node).ok() ? std::move(node) : nullptr;
    };
    std::unique_ptr<node::Node> updater = open("rw-updater", "");
    QVERIFY(updater);
    std::unique_ptr<node::Node> replica = open("rw-replica", updater->endpoint().ToString());
    QVERIFY(replica);
    const QString updater_address = QString::fromStdString(updater->endpoint().ToString());
    const QString replica_address = QString::fromStdString(replica->endpoint().ToString());
    LoadProcess load;
    QVERIFY(load.Start({"--updater", updater_address, "--read", replica_address, "--read-fraction",
                        "0.5", "--pool-size", "2", "--concurrency", "4"},
                       120));
    // Both pools full and both sides served: writes on the updater, reads on the replica.
    admin::Telemetry t;
    auto entries_on = [&t](const QString& address) {
      int n = 0;
      for (const admin::PoolEntry& e : t.pools(0).entries())
        n += e.server() == address.toStdString() ? 1 : 0;
      return n;
    };
    // Requests the pool's connections to the updater have carried (the write client's).
    auto written_on_updater = [&t, &updater_address] {
      uint64_t n = 0;
      for (const admin::PoolEntry& e : t.pools(0).entries()) {
        if (e.server() == updater_address.toStdString()) n += e.requests();
      }
      return n;
    };
    // Waited for together: a loaded machine may show the pools full before any write went out.
    QVERIFY2(WaitUntil(
                 [&] {
                   return Ask(load, "", &t).ok() && t.pools_size() == 1 &&
                          entries_on(updater_address) == 2 && entries_on(replica_address) == 2 &&
                          t.pools(0).throughput().requests_per_s() > 0 && written_on_updater() > 0;
                 },
                 30s, 50ms),
             qPrintable(QString::fromStdString(t.ShortDebugString())));
    const admin::ClientPool& pool = t.pools(0);
    QCOMPARE(pool.capacity(), 4u);
    QCOMPARE(pool.entries_size(), 4);
    // Each server once in the pool's server list, whatever pool it came from.
    QCOMPARE(pool.servers_size(), 2);
    for (const admin::PoolEntry& e : pool.entries()) {
      QVERIFY(e.server_index() < uint32_t(pool.servers_size()));
      QCOMPARE(pool.servers(int(e.server_index())), e.server());
    }
    // The updater's slot table names the same client, with as many connections as the pool lists.
    // Not QTRY_VERIFY: it evaluates its condition again after it held, and this one may not hold
    // twice in a row (the pool swaps a connection for a lower slot: held is 3 or 1 meanwhile).
    int held = 0;
    QVERIFY2(WaitUntil(
                 [&] {
                   held = 0;
                   const admin::Telemetry u = updater->Snapshot();
                   for (const admin::SlotEntry& e : u.slots())
                     held += e.client_id() == pool.client_id() ? 1 : 0;
                   return held == 2;
                 },
                 20s, 50ms),
             qPrintable(
                 QString("the updater's slot table holds %1 of the pool's connections").arg(held)));
    // The writes' calls are in the figures: more calls started than the read client alone made.
    const admin::Telemetry served = updater->Snapshot();
    QVERIFY(served.throughput().requests_per_s() > 0);
    QVERIFY(pool.counters().requests() > 0);
    uint64_t written = 0;
    for (const admin::PoolEntry& e : pool.entries()) {
      if (e.server() == updater_address.toStdString()) written += e.requests();
    }
    QVERIFY2(written > 0, "the write pool's requests are reported");
    load.Stop();
    replica->Shutdown(std::chrono::milliseconds(200));
    updater->Shutdown(std::chrono::milliseconds(200));
  }

  void helpSaysTheEndpointIsOpenWithoutTokenFiles() {
    QProcess process;
    process.start(BuiltProgram("railyardctl"), {"load", "--help"});
    QVERIFY(process.waitForFinished(10000));
    const QString help = QString::fromUtf8(process.readAllStandardOutput()).simplified();
    QVERIFY2(help.contains("--admin-operator-token-file") && help.contains("it is open"),
             qPrintable(help));
  }

 private:
  QTemporaryDir dir_;
  std::unique_ptr<node::Node> node_;
};

RAILYARD_QTEST_GUILESS_MAIN(LoadTelemetryTest)
#include "tst_load_telemetry.moc"
