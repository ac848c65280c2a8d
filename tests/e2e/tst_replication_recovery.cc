// SPDX-License-Identifier: Apache-2.0
// Replication when things break, with real railyard-node processes on loopback: a replica
// SIGKILLed under load and restarted on its data, a byte flipped in transit, a damaged block in the
// updater's own segment, and an empty replica joining a large store.
//
// Sizes from the environment: RAILYARD_REPLICA_KILL_ROUNDS (default 10), RAILYARD_JOIN_DOCS
// (default 1000000); RAILYARD_REPLICATION_SEED repeats a failing run.
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <cstring>
#include <random>

#include "storage/docstore.h"
#include "tests/e2e/replication_support.h"
#include "tests/e2e/versioned_writer.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_depth.h"

using namespace railyard;
using namespace railyard::e2e;

namespace {

int FromEnvironment(const char* name, int fallback) {
  const int value = qEnvironmentVariableIntValue(name);
  return value > 0 ? value : fallback;
}

uint64_t SeedFromEnvironment() {
  bool ok = false;
  const qulonglong seed = qEnvironmentVariable("RAILYARD_REPLICATION_SEED").toULongLong(&ok);
  return ok ? seed : std::random_device{}();
}

// The seed's documents: 96 bytes, from the id, as little compressible as real ones.
std::string SeedDoc(uint64_t id) {
  std::string doc = "id=" + std::to_string(id) + " ";
  uint64_t state = id;
  while (doc.size() < 96) {
    state += 0x9E3779B97F4A7C15ull;  // splitmix64
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    for (int i = 0; i < 16 && doc.size() < 96; ++i, z >>= 4)
      doc.push_back("0123456789abcdef"[z & 15]);
  }
  return doc;
}

// The offset of the first block that begins at or after `offset` in a segment file (block headers:
// docs/formats.md, the stored payload's length at bytes 12..15); -1 if none.
qint64 BlockStartAfter(const QByteArray& segment, qint64 offset) {
  constexpr qint64 kHeaderBytes = 24;
  qint64 at = 0;
  while (at < offset && at + kHeaderBytes <= segment.size()) {
    uint32_t stored = 0;
    std::memcpy(&stored, segment.constData() + at + 12, 4);  // Little-endian, as the host.
    at += kHeaderBytes + stored;
  }
  return at < segment.size() ? at : -1;
}

// Spread 64-bit ids, as the seed's are.
uint64_t JoinId(uint64_t i) { return (i + 1) * 0x9E3779B97F4A7C15ull; }

}  // namespace

class ReplicationRecoveryTest : public QObject {
  Q_OBJECT

  std::unique_ptr<QTemporaryDir> dir_;
  std::vector<std::unique_ptr<NodeProcess>> nodes_;
  const uint64_t seed_ = SeedFromEnvironment();

  QString Dir() const { return dir_->path(); }

  NodeProcess* Start(const QString& name, const QStringList& extra_args,
                     int memtable_entries = 200) {
    NodeProcessOptions options = NodeOptions(Dir(), name, extra_args);
    options.memtable_entries = memtable_entries;
    nodes_.push_back(std::make_unique<NodeProcess>(options));
    QString error;
    if (!nodes_.back()->Start(0, 0, &error)) {
      qWarning("%s", qPrintable(error));
      return nullptr;
    }
    return nodes_.back().get();
  }

 private Q_SLOTS:
  void initTestCase() { qInfo("seed %llu", static_cast<unsigned long long>(seed_)); }
  void init() {
    dir_ = std::make_unique<QTemporaryDir>();
    QVERIFY(WriteTokenFiles(Dir()));
  }
  void cleanup() {
    nodes_.clear();
    if (QTest::currentTestFailed()) {
      dir_->setAutoRemove(false);
      qWarning("kept %s", qPrintable(Dir()));
    }
    dir_.reset();
  }

  void replicaKilledUnderLoadResumesIdenticalToTheUpdater() {
    // Under a sanitizer a third of the rounds and a quarter of the documents below (enough that
    // the catch-up's progress is seen between polls): every path still runs, within a quarter of
    // the timeout on a slow machine beside the fuzz build (tests/support/test_depth.h).
    const int rounds =
        FromEnvironment("RAILYARD_REPLICA_KILL_ROUNDS", testing::SanitizerScaled(10, 3, 3));
    std::mt19937_64 rng(seed_);
    // A small in-memory index: both nodes flush (and compact) along the way.
    NodeProcess* updater = Start("updater", UpdaterArgs(Dir()), 64);
    QVERIFY(updater);
    NodeProcess* replica = Start("replica", ReplicaArgs(Dir(), *updater), 64);
    QVERIFY(replica);
    const std::unique_ptr<rpc::Client> to_updater = ConnectTo(*updater);
    QVERIFY(to_updater);
    VersionedWriter writer(*to_updater, 2000, 0.15, seed_);
    writer.Start();
    for (int round = 1; round <= rounds; ++round) {
      QThread::msleep(std::uniform_int_distribution<int>(200, 1000)(rng));
      replica->Kill();
      QThread::msleep(std::uniform_int_distribution<int>(0, 300)(rng));  // Writes go on.
      QString error;
      QVERIFY2(replica->Restart(&error), qPrintable(error));
      // Hold writes still, so that there is one state to compare once it has caught up.
      writer.Pause();
      const QString lag = WaitCaughtUp(*updater, {replica}, writer.max_position());
      QVERIFY2(lag.isEmpty(), qPrintable(QString("round %1: %2").arg(round).arg(lag)));
      const std::unique_ptr<rpc::Client> to_replica = ConnectTo(*replica);
      QVERIFY(to_replica);
      std::map<uint64_t, std::string> ours, theirs;
      QVERIFY(ReadDocs(*to_updater, IdRange(0, writer.keys()), &ours).isEmpty());
      QVERIFY(ReadDocs(*to_replica, IdRange(0, writer.keys()), &theirs).isEmpty());
      QVERIFY2(ours == theirs, qPrintable(QString("round %1: %2 documents on the updater, %3 on "
                                                  "the replica")
                                              .arg(round)
                                              .arg(ours.size())
                                              .arg(theirs.size())));
      for (uint64_t id = 0; id < writer.keys(); ++id) {
        const auto it = theirs.find(id);
        const std::string why =
            writer.CheckFinal(id, it == theirs.end() ? std::nullopt : std::optional(it->second));
        QVERIFY2(why.empty(), why.c_str());
      }
      const QString differs =
          CompareSegments(DataDirOf(Dir(), "updater"), DataDirOf(Dir(), "replica"));
      QVERIFY2(differs.isEmpty(), qPrintable(QString("round %1: %2").arg(round).arg(differs)));
      QCOMPARE(SegmentBytes(DataDirOf(Dir(), "replica")),
               ReplicationOf(*replica).applied_position());
      writer.Resume();
    }
    writer.Stop();
    QCOMPARE(writer.failed(), uint64_t{0});
    const admin::Telemetry t = TelemetryOf(*replica);
    qInfo("%d rounds, %llu writes; the replica has %d on-disk indexes", rounds,
          static_cast<unsigned long long>(writer.acknowledged()), t.storage().indexes_size());
    QVERIFY(t.storage().indexes_size() > 0);  // It flushed.
  }

  void blockDamagedInTransitIsFetchedAgainNeverApplied() {
    NodeProcess* updater = Start("updater", UpdaterArgs(Dir()) << "--fault-corrupt-sends"
                                                               << "3");
    QVERIFY(updater);
    const std::unique_ptr<rpc::Client> to_updater = ConnectTo(*updater);
    QVERIFY(to_updater);
    uint64_t position = 0;
    for (uint64_t id = 0; id < 500; ++id) {
      QVERIFY(Put(*to_updater, id, SeedDoc(id), &position).ok());
    }
    NodeProcess* replica = Start("replica", ReplicaArgs(Dir(), *updater));
    QVERIFY(replica);
    for (uint64_t id = 500; id < 1000; ++id) {
      QVERIFY(Put(*to_updater, id, SeedDoc(id), &position).ok());
    }
    const QString lag = WaitCaughtUp(*updater, {replica}, position);
    QVERIFY2(lag.isEmpty(), qPrintable(lag));
    const admin::Replication r = ReplicationOf(*replica);
    QVERIFY2(r.refetches() >= 1, r.DebugString().c_str());
    QVERIFY(
        WaitFor([&] { return ReadText(LogOf(Dir(), "replica")).contains("failed its checksum"); }));
    const std::unique_ptr<rpc::Client> to_replica = ConnectTo(*replica);
    QVERIFY(to_replica);
    std::map<uint64_t, std::string> ours, theirs;
    QVERIFY(ReadDocs(*to_updater, IdRange(0, 1000), &ours).isEmpty());
    QVERIFY(ReadDocs(*to_replica, IdRange(0, 1000), &theirs).isEmpty());
    QCOMPARE(theirs.size(), size_t{1000});
    QVERIFY(ours == theirs);
    const QString differs =
        CompareSegments(DataDirOf(Dir(), "updater"), DataDirOf(Dir(), "replica"));
    QVERIFY2(differs.isEmpty(), qPrintable(differs));
  }

  void damagedBlockInTheUpdatersSegmentStopsReplicationThere_data() {
    QTest::addColumn<bool>("in_header");
    QTest::newRow("payload") << false;
    QTest::newRow("block magic") << true;
  }
  void damagedBlockInTheUpdatersSegmentStopsReplicationThere() {
    NodeProcess* updater = Start("updater", UpdaterArgs(Dir()));
    QVERIFY(updater);
    constexpr uint64_t kDocs = 2000;
    {
      const std::unique_ptr<rpc::Client> to_updater = ConnectTo(*updater);
      QVERIFY(to_updater);
      for (uint64_t id = 0; id < kDocs; ++id) {
        QVERIFY(Put(*to_updater, id, SeedDoc(id), nullptr).ok());
      }
    }
    int exit_code = -1;
    QVERIFY(updater->Terminate(std::chrono::seconds(10), &exit_code));
    QCOMPARE(exit_code, 0);
    QFile segment(DataDirOf(Dir(), "updater") + "/segment-000001.seg");
    QVERIFY(segment.open(QIODevice::ReadWrite));
    // In a block's payload, or the first byte of a block's magic (then the updater must tell a
    // damaged block from a follower's position where no block begins).
    QFETCH(bool, in_header);
    const qint64 damaged_at = in_header ? BlockStartAfter(segment.readAll(), segment.size() / 2)
                                        : segment.size() / 2 + 100;
    QVERIFY(damaged_at > 0 && damaged_at < segment.size());
    QVERIFY(segment.seek(damaged_at));
    char byte = 0;
    QVERIFY(segment.getChar(&byte));
    QVERIFY(segment.seek(damaged_at));
    QVERIFY(segment.putChar(static_cast<char>(byte ^ 0x5a)));
    segment.close();
    QString error;
    QVERIFY2(updater->Restart(&error), qPrintable(error));

    NodeProcess* replica = Start("replica", ReplicaArgs(Dir(), *updater));
    QVERIFY(replica);
    QVERIFY(WaitFor([&] { return ReplicationOf(*replica).state() == admin::REPLICA_STOPPED; }));
    const admin::Replication r = ReplicationOf(*replica);
    QVERIFY2(r.last_error().find("damaged block") != std::string::npos, r.DebugString().c_str());
    // The nodes' logs are other processes' writes: waited for, not assumed already there.
    WaitFor([&] {
      return ReadText(LogOf(Dir(), "updater")).contains("replication to 'replica' stopped");
    });
    const QString updater_log = ReadText(LogOf(Dir(), "updater"));
    QVERIFY2(updater_log.contains("replication to 'replica' stopped"), qPrintable(updater_log));
    QVERIFY(WaitFor([&] { return ReadText(LogOf(Dir(), "replica")).contains("damaged block"); }));

    // It stays stopped at the block, however often it tries again (every 2 s): once the updater
    // has served it another fetch, it holds what it held.
    const uint64_t held = SegmentBytes(DataDirOf(Dir(), "replica"));
    auto fetches = [updater] {
      uint64_t served = 0;
      const admin::Telemetry telemetry = TelemetryOf(*updater);
      for (const admin::MethodStats& m : telemetry.throughput().methods()) {
        if (m.method() == "repl.Fetch") served += m.requests();
      }
      return served;
    };
    const uint64_t fetched = fetches();
    QVERIFY(WaitFor([&] { return fetches() > fetched; }));
    QCOMPARE(ReplicationOf(*replica).state(), admin::REPLICA_STOPPED);
    QCOMPARE(SegmentBytes(DataDirOf(Dir(), "replica")), held);
    QVERIFY2(held <= static_cast<uint64_t>(damaged_at),
             qPrintable(QString("holds %1 bytes, the damage is at %2").arg(held).arg(damaged_at)));
    QCOMPARE(r.applied_position(), held);
    // What it holds is the documents before the damage, exactly: a prefix of what was written.
    const std::unique_ptr<rpc::Client> to_replica = ConnectTo(*replica);
    QVERIFY(to_replica);
    std::map<uint64_t, std::string> theirs;
    QVERIFY(ReadDocs(*to_replica, IdRange(0, kDocs), &theirs).isEmpty());
    QVERIFY(theirs.size() > 0 && theirs.size() < kDocs);
    for (const auto& [id, doc] : theirs) {
      QVERIFY(id < theirs.size());
      QCOMPARE(doc, SeedDoc(id));
    }
    const QString differs =
        CompareSegments(DataDirOf(Dir(), "updater"), DataDirOf(Dir(), "replica"));
    QVERIFY2(differs.isEmpty(), qPrintable(differs));
  }

  void emptyReplicaJoinsALargeStoreReportingProgress() {
    const int docs =
        FromEnvironment("RAILYARD_JOIN_DOCS", testing::SanitizerScaled(1000000, 4, 250000));
    QElapsedTimer timer;
    timer.start();
    {
      // Built directly in the updater's data directory: far faster than through the service.
      std::unique_ptr<storage::DocStore> store;
      QVERIFY(storage::DocStore::Open(storage::Options(), DataDirOf(Dir(), "updater").toStdString(),
                                      &store)
                  .ok());
      storage::WriteBatch batch;
      for (int i = 0; i < docs; ++i) {
        batch.Put(JoinId(i), SeedDoc(JoinId(i)));
        if (batch.size() == 1000 || i == docs - 1) {
          QVERIFY(store->Write(batch).ok());
          batch.Clear();
        }
      }
      QVERIFY(store->Flush().ok());  // Into an on-disk index: the updater opens without replay.
      QVERIFY(store->Close().ok());
    }
    const qint64 build_ms = timer.restart();
    NodeProcess* updater = Start("updater", UpdaterArgs(Dir()), 1 << 20);
    QVERIFY(updater);
    NodeProcess* replica = Start("replica", ReplicaArgs(Dir(), *updater), 1 << 20);
    QVERIFY(replica);
    timer.restart();
    const uint64_t head = ReplicationOf(*updater).head_position();
    QVERIFY(head > 0);
    double progress_seen = 0;
    admin::Replication r;
    for (int poll = 0; poll < 2400; ++poll) {  // At most 2 minutes.
      r = ReplicationOf(*replica);
      if (r.state() == admin::REPLICA_CATCHING_UP && r.catch_up_progress() > 0 &&
          r.catch_up_progress() < 1) {
        progress_seen = r.catch_up_progress();
      }
      if (r.state() == admin::REPLICA_TAILING && r.applied_position() >= head) break;
      QThread::msleep(50);
    }
    const qint64 catch_up_ms = timer.elapsed();
    qInfo("%d documents: built in %lld ms, caught up in %lld ms (%.0f docs/s)", docs, build_ms,
          catch_up_ms, docs * 1000.0 / std::max<qint64>(1, catch_up_ms));
    QCOMPARE(r.state(), admin::REPLICA_TAILING);
    QVERIFY2(progress_seen > 0, "catching up never showed its progress in telemetry");
    if (catch_up_ms > 10000) {
      // The follower logs its progress every 5 s of a catch-up. (Measured here through polls that
      // may each take a while on a loaded machine, so only a catch-up well past 5 s must show it.)
      QVERIFY(ReadText(LogOf(Dir(), "replica")).contains("catching up from"));
    }
    QCOMPARE(r.applied_docs(), static_cast<uint64_t>(docs));
    const admin::StorageStats storage = TelemetryOf(*replica).storage();
    uint64_t indexed = storage.memtable_entries();
    for (const admin::IndexInfo& index : storage.indexes()) indexed += index.entries();
    QCOMPARE(indexed, static_cast<uint64_t>(docs));

    std::mt19937_64 rng(seed_);
    std::vector<uint64_t> ids;
    for (int i = 0; i < 10000; ++i) {
      ids.push_back(JoinId(std::uniform_int_distribution<int>(0, docs - 1)(rng)));
    }
    const std::unique_ptr<rpc::Client> to_replica = ConnectTo(*replica);
    QVERIFY(to_replica);
    std::map<uint64_t, std::string> theirs;
    QVERIFY(ReadDocs(*to_replica, ids, &theirs).isEmpty());
    for (uint64_t id : ids) {
      QVERIFY2(theirs.count(id) && theirs[id] == SeedDoc(id), std::to_string(id).c_str());
    }
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ReplicationRecoveryTest)
#include "tst_replication_recovery.moc"
