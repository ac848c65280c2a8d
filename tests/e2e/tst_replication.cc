// SPDX-License-Identifier: Apache-2.0
// Replication with real railyard-node processes on loopback: an updater and its replicas under a
// writer that puts, overwrites and deletes, readers on every node that carry their writes'
// positions, the updater killed and restarted, writes and followers that must be refused, and the
// document cache under a writer hammering the same keys.
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <optional>
#include <random>
#include <thread>

#include "railyard/docservice.pb.h"
#include "railyard/replication.pb.h"
#include "tests/e2e/replication_support.h"
#include "tests/e2e/versioned_writer.h"
#include "tests/rpc/tls_test_certs.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

using namespace railyard;
using namespace railyard::e2e;

namespace {

// Every key of `writer` as `client`'s node holds it, checked with CheckFinal; the problems found.
QStringList CheckFinalState(rpc::Client& client, const VersionedWriter& writer,
                            const QString& node) {
  std::map<uint64_t, std::string> docs;
  if (QString error = ReadDocs(client, IdRange(0, writer.keys()), &docs); !error.isEmpty()) {
    return {node + ": " + error};
  }
  QStringList problems;
  for (uint64_t id = 0; id < writer.keys(); ++id) {
    const auto it = docs.find(id);
    const std::string why =
        writer.CheckFinal(id, it == docs.end() ? std::nullopt : std::optional(it->second));
    if (!why.empty()) problems << node + ": " + QString::fromStdString(why);
  }
  return problems;
}

QString Describe(const ReadTally& tally) {
  QString text = QString("%1 reads, %2 found, %3 behind, %4 errors, %5 violations")
                     .arg(tally.reads)
                     .arg(tally.found)
                     .arg(tally.behind)
                     .arg(tally.errors)
                     .arg(tally.violations);
  for (const std::string& problem : tally.first_problems) {
    text += "\n  " + QString::fromStdString(problem);
  }
  return text;
}

// Runs `railyard-node args` to its end (bounded); its exit code (-1 if killed) and output.
int RunNode(const QStringList& args, QString* output) {
  QProcess node;
  node.start(BuiltProgram("railyard-node"), args);
  if (!node.waitForFinished(30000)) {
    node.kill();
    node.waitForFinished(5000);
    return -1;
  }
  *output = QString::fromUtf8(node.readAllStandardOutput() + node.readAllStandardError());
  return node.exitStatus() == QProcess::NormalExit ? node.exitCode() : -1;
}

}  // namespace

class ReplicationTest : public QObject {
  Q_OBJECT

  std::unique_ptr<QTemporaryDir> dir_;  // Fresh for each test.
  std::vector<std::unique_ptr<NodeProcess>> nodes_;

  QString Dir() const { return dir_->path(); }

  // Starts a node of this test's cluster; null (the test fails) if it does not come up.
  NodeProcess* Start(const QString& name, const QStringList& extra_args) {
    nodes_.push_back(std::make_unique<NodeProcess>(NodeOptions(Dir(), name, extra_args)));
    QString error;
    if (!nodes_.back()->Start(0, 0, &error)) {
      qWarning("%s", qPrintable(error));
      return nullptr;
    }
    return nodes_.back().get();
  }

 private Q_SLOTS:
  void init() {
    dir_ = std::make_unique<QTemporaryDir>();
    QVERIFY(WriteTokenFiles(Dir()));
  }
  void cleanup() {
    nodes_.clear();                                              // SIGKILLs what still runs.
    if (QTest::currentTestFailed()) dir_->setAutoRemove(false);  // Keep the logs to look at.
    if (QTest::currentTestFailed()) qWarning("kept %s", qPrintable(Dir()));
    dir_.reset();
  }

  void readsCarryingAPositionNeverGoBackAndReplicasEndEqual() {
    NodeProcess* updater = Start("updater", UpdaterArgs(Dir()));
    QVERIFY(updater);
    NodeProcess* replica1 = Start("replica1", ReplicaArgs(Dir(), *updater));
    NodeProcess* replica2 = Start("replica2", ReplicaArgs(Dir(), *updater));
    QVERIFY(replica1 && replica2);
    const std::vector<NodeProcess*> all{updater, replica1, replica2};
    std::vector<std::unique_ptr<rpc::Client>> readers;
    for (NodeProcess* node : all) {
      readers.push_back(ConnectTo(*node));
      QVERIFY(readers.back());
    }
    const std::unique_ptr<rpc::Client> to_updater = ConnectTo(*updater);
    QVERIFY(to_updater);

    VersionedWriter writer(*to_updater, 300, 0.2, 1);
    std::atomic<bool> stop{false};
    std::vector<ReadTally> tallies(all.size());
    std::vector<std::thread> threads;
    writer.Start();
    for (size_t i = 0; i < all.size(); ++i) {
      threads.emplace_back(
          [&, i] { ReadAndCheck(*readers[i], writer, true, stop, i + 7, &tallies[i]); });
    }
    // At least 3 s, and on until the figures checked below are reached: a loaded machine may
    // need longer for them (the readers and the writer stop before any check can return).
    QThread::msleep(3000);
    WaitFor(
        [&] {
          return writer.acknowledged() > 300 &&
                 std::all_of(tallies.begin(), tallies.end(),
                             [](const ReadTally& t) { return t.found_so_far.load() > 100; });
        },
        std::chrono::seconds(60));
    stop = true;
    for (std::thread& t : threads) t.join();
    writer.Stop();

    QCOMPARE(writer.failed(), uint64_t{0});
    QVERIFY2(writer.acknowledged() > 300, qPrintable(QString::number(writer.acknowledged())));
    for (size_t i = 0; i < all.size(); ++i) {
      const QString summary = all[i]->name() + ": " + Describe(tallies[i]);
      qInfo("%s", qPrintable(summary));
      QVERIFY2(tallies[i].violations == 0 && tallies[i].errors == 0, qPrintable(summary));
      QVERIFY2(tallies[i].found > 100, qPrintable(summary));
    }
    const QString lag = WaitCaughtUp(*updater, {replica1, replica2}, writer.max_position());
    QVERIFY2(lag.isEmpty(), qPrintable(lag));
    for (size_t i = 0; i < all.size(); ++i) {
      const QStringList problems = CheckFinalState(*readers[i], writer, all[i]->name());
      QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 5).join('\n')));
    }
  }

  void updaterKilledReplicasServeThenResumeWithNothingLost() {
    NodeProcess* updater = Start("updater", UpdaterArgs(Dir()) << "--sync"
                                                               << "every-write");
    QVERIFY(updater);
    NodeProcess* replica1 = Start("replica1", ReplicaArgs(Dir(), *updater));
    NodeProcess* replica2 = Start("replica2", ReplicaArgs(Dir(), *updater));
    QVERIFY(replica1 && replica2);
    const std::vector<NodeProcess*> replicas{replica1, replica2};
    const std::unique_ptr<rpc::Client> to_updater = ConnectTo(*updater);
    QVERIFY(to_updater);
    VersionedWriter writer(*to_updater, 500, 0.2, 2);
    writer.Start();
    QVERIFY(WaitFor([&] { return writer.acknowledged() > 200; }));

    updater->Kill();  // SIGKILL, under load.
    const uint64_t acknowledged_at_kill = writer.acknowledged();
    std::map<NodeProcess*, std::unique_ptr<rpc::Client>> readers;
    for (NodeProcess* replica : replicas) {
      QVERIFY(
          WaitFor([&] { return ReplicationOf(*replica).state() == admin::REPLICA_DISCONNECTED; }));
      readers[replica] = ConnectTo(*replica);
      QVERIFY(readers[replica]);
    }
    for (NodeProcess* replica : replicas) {
      // Reads go on: every key answers (found or not), none fails.
      std::map<uint64_t, std::string> docs;
      const QString error = ReadDocs(*readers[replica], IdRange(0, writer.keys()), &docs);
      QVERIFY2(error.isEmpty(), qPrintable(error));
      QVERIFY(docs.size() > 100);
      std::optional<std::string> doc;
      QVERIFY(Get(*readers[replica], docs.begin()->first, 0, &doc).status.ok());
      const admin::Replication r = ReplicationOf(*replica);
      QCOMPARE(r.state(), admin::REPLICA_DISCONNECTED);
      QVERIFY2(!r.last_error().empty(), r.DebugString().c_str());
      // Out of touch: how far behind it is cannot be known (docs/figures.md), so it is not 0.
      QVERIFY2(!r.lag_known(), r.DebugString().c_str());
    }

    QString error;
    QVERIFY2(updater->Restart(&error), qPrintable(error));  // Same data, same port.
    for (NodeProcess* replica : replicas) {
      QVERIFY(WaitFor([&] { return ReplicationOf(*replica).state() == admin::REPLICA_TAILING; }));
    }
    // The writer's client finds the updater again; writes go on, then stop.
    QVERIFY(WaitFor([&] { return writer.acknowledged() > acknowledged_at_kill + 200; }));
    writer.Stop();
    qInfo("%llu writes acknowledged, %llu failed while the updater was down",
          static_cast<unsigned long long>(writer.acknowledged()),
          static_cast<unsigned long long>(writer.failed()));
    const QString lag = WaitCaughtUp(*updater, {replica1, replica2}, writer.max_position());
    QVERIFY2(lag.isEmpty(), qPrintable(lag));
    std::map<uint64_t, std::string> on_updater;
    QVERIFY(ReadDocs(*to_updater, IdRange(0, writer.keys()), &on_updater).isEmpty());
    for (NodeProcess* replica : replicas) {
      const QStringList problems = CheckFinalState(*readers[replica], writer, replica->name());
      QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 5).join('\n')));
      std::map<uint64_t, std::string> docs;
      QVERIFY(ReadDocs(*readers[replica], IdRange(0, writer.keys()), &docs).isEmpty());
      QVERIFY(docs == on_updater);  // Not a write unacknowledged by one and held by the other.
    }
  }

  void writesToAReplicaAndFollowersWithoutTheTokenAreRefused() {
    NodeProcess* updater = Start("updater", UpdaterArgs(Dir()));
    QVERIFY(updater);
    NodeProcess* replica = Start("replica", ReplicaArgs(Dir(), *updater));
    QVERIFY(replica);
    const std::unique_ptr<rpc::Client> to_replica = ConnectTo(*replica);
    QVERIFY(to_replica);
    const rpc::Status put = Put(*to_replica, 1, "doc", nullptr);
    QCOMPARE(put.code(), rpc::Code::kFailedPrecondition);
    QVERIFY2(QString::fromStdString(put.message()).contains(updater->service_address()),
             put.message().c_str());
    doc::DeleteRequest erase;
    erase.set_id(1);
    QCOMPARE(to_replica->Call("doc.Delete", erase.SerializeAsString()).status.code(),
             rpc::Code::kFailedPrecondition);

    // A wrong token: refused, and not retried as if the updater were down.
    QVERIFY(WritePrivateFile(Dir() + "/wrong-token", "not-the-token\n"));
    NodeProcess* wrong =
        Start("wrong", {"--role", "replica", "--follow", updater->service_address(),
                        "--replication-token-file", Dir() + "/wrong-token"});
    QVERIFY(wrong);
    QVERIFY(WaitFor([&] { return ReplicationOf(*wrong).state() == admin::REPLICA_STOPPED; }));
    const std::string wrong_error = ReplicationOf(*wrong).last_error();
    QVERIFY2(wrong_error.find("not accepted") != std::string::npos, wrong_error.c_str());
    QVERIFY(WaitFor(
        [&] { return ReadText(LogOf(Dir(), "updater")).contains("refused follower 'wrong'"); }));
    QVERIFY(ReadText(LogOf(Dir(), "updater")).contains("a wrong replication token"));
    QVERIFY(ReadText(LogOf(Dir(), "wrong")).contains("not accepted"));

    // No token at all: a replica will not even start without one...
    QVERIFY(WritePrivateFile(Dir() + "/empty", ""));
    QString output;
    QVERIFY(RunNode({"--data-dir", Dir() + "/empty-replica", "--listen", "127.0.0.1:0", "--role",
                     "replica", "--follow", updater->service_address(), "--replication-token-file",
                     Dir() + "/empty"},
                    &output) > 0);
    QVERIFY2(output.contains("needs a credential"), qPrintable(output));
    // ...and a follower that asks without one is refused, saying so.
    const std::unique_ptr<rpc::Client> to_updater = ConnectTo(*updater);
    QVERIFY(to_updater);
    repl::FetchRequest fetch;
    fetch.set_follower("tokenless");
    const rpc::CallResult refused = to_updater->Call("repl.Fetch", fetch.SerializeAsString());
    QCOMPARE(refused.status.code(), rpc::Code::kUnauthenticated);
    QVERIFY2(refused.status.message().find("no replication token given") != std::string::npos,
             refused.status.message().c_str());
    QVERIFY(ReadText(LogOf(Dir(), "updater")).contains("refused follower 'tokenless'"));

    // A replica with nothing to follow.
    QVERIFY(RunNode({"--data-dir", Dir() + "/lost", "--listen", "127.0.0.1:0", "--role", "replica",
                     "--replication-token-file", Dir() + "/replication"},
                    &output) > 0);
    QVERIFY2(output.contains("--follow"), qPrintable(output));
    // The good replica follows on, never refused.
    QVERIFY(WaitFor([&] { return ReplicationOf(*replica).state() == admin::REPLICA_TAILING; }));
    QVERIFY(!ReadText(LogOf(Dir(), "updater")).contains("refused follower 'replica'"));
  }

  void followerAuthenticatedByItsClientCertificate() {
    // The updater's docservice listener requires client certificates and it has no replication
    // token: the certificate is the follower's credential.
    const rpc::testing::TlsTestFiles tls = rpc::testing::MakeTlsTestFiles(Dir().toStdString());
    const auto q = [](const std::string& s) { return QString::fromStdString(s); };
    NodeProcess* updater = Start("updater", {"--tls-cert", q(tls.server_cert), "--tls-key",
                                             q(tls.server_key), "--tls-client-ca", q(tls.ca_cert)});
    QVERIFY(updater);
    NodeProcess* replica =
        Start("replica", {"--role", "replica", "--follow", updater->service_address(),
                          "--follow-tls-ca", q(tls.ca_cert), "--follow-tls-cert",
                          q(tls.client_cert), "--follow-tls-key", q(tls.client_key)});
    QVERIFY(replica);
    // A certificate the updater's CA did not sign: the handshake fails, and the replica says why.
    NodeProcess* stranger = Start(
        "stranger", {"--role", "replica", "--follow", updater->service_address(), "--follow-tls-ca",
                     q(tls.ca_cert), "--follow-tls-cert", q(tls.stranger_client_cert),
                     "--follow-tls-key", q(tls.stranger_client_key)});
    QVERIFY(stranger);

    rpc::ClientOptions options;
    options.servers = {updater->service()};
    options.pool_size = 2;
    rpc::TlsClientOptions client_tls;
    client_tls.ca_file = tls.ca_cert;
    client_tls.cert_file = tls.client_cert;
    client_tls.key_file = tls.client_key;
    options.tls = client_tls;
    rpc::Client writer(options);
    QVERIFY(writer.Start().ok());
    QVERIFY(writer.WaitForPool(1, std::chrono::seconds(20)));
    uint64_t position = 0;
    QVERIFY(Put(writer, 7, "over tls", &position).ok());
    QCOMPARE(WaitCaughtUp(*updater, {replica}, position), QString());
    const std::unique_ptr<rpc::Client> reader = ConnectTo(*replica);
    QVERIFY(reader);
    std::optional<std::string> doc;
    QVERIFY(Get(*reader, 7, position, &doc).status.ok());
    QCOMPARE(doc.value_or(""), std::string("over tls"));

    QVERIFY(WaitFor([&] { return !ReplicationOf(*stranger).last_error().empty(); }));
    const admin::Replication refused = ReplicationOf(*stranger);
    QVERIFY(refused.state() != admin::REPLICA_TAILING);
    QVERIFY2(refused.last_error().find("handshake") != std::string::npos &&
                 refused.last_error().find("unknown ca") != std::string::npos,
             refused.last_error().c_str());
    QCOMPARE(refused.applied_position(), uint64_t{0});
  }

  void cacheNeverHidesAnAcknowledgedOverwriteOrDelete() {
    NodeProcess* updater = Start("updater", UpdaterArgs(Dir()) << "--doc-cache-mb"
                                                               << "8");
    QVERIFY(updater);
    const std::unique_ptr<rpc::Client> to_updater = ConnectTo(*updater);
    const std::unique_ptr<rpc::Client> reads = ConnectTo(*updater, 4);
    QVERIFY(to_updater && reads);
    VersionedWriter writer(*to_updater, 16, 0.25, 3);  // A few hot keys.
    std::atomic<bool> stop{false};
    std::vector<ReadTally> tallies(3);
    std::vector<std::thread> threads;
    writer.Start();
    for (size_t i = 0; i < tallies.size(); ++i) {
      threads.emplace_back(
          [&, i] { ReadAndCheck(*reads, writer, false, stop, i + 11, &tallies[i]); });
    }
    // At least 2 s, and on until 200 writes (a loaded machine may need longer).
    QThread::msleep(2000);
    WaitFor([&] { return writer.acknowledged() > 200; }, std::chrono::seconds(60));
    stop = true;
    for (std::thread& t : threads) t.join();
    writer.Stop();
    QCOMPARE(writer.failed(), uint64_t{0});
    QVERIFY(writer.acknowledged() > 200);
    for (const ReadTally& tally : tallies) {
      qInfo("%s", qPrintable(Describe(tally)));
      QVERIFY2(tally.violations == 0 && tally.errors == 0 && tally.behind == 0,
               qPrintable(Describe(tally)));
    }
    const admin::DocCache cache = TelemetryOf(*updater).storage().cache();
    qInfo("cache: %s", cache.ShortDebugString().c_str());
    QVERIFY2(cache.hits() > 0, cache.DebugString().c_str());
    QVERIFY2(cache.invalidations() > 0, cache.DebugString().c_str());
    QVERIFY(CheckFinalState(*reads, writer, "updater").isEmpty());
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ReplicationTest)
#include "tst_replication.moc"
