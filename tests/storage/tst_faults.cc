// SPDX-License-Identifier: Apache-2.0
// The disk misbehaving, through FaultInjectingEnv: a failed or torn write, a failed fsync, a full
// disk, a corrupted read, a failed lock, unlink or directory listing. Each time the caller gets a
// clear error, no acknowledged write is lost, nothing wrong is ever returned as data, and the store
// reopens cleanly afterwards.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "storage/fault_env.h"
#include "storage/filenames.h"
#include "tests/storage/storage_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::storage;
using namespace railyard::storage::testing;
using Fault = FaultInjectingEnv::Fault;
using Op = FaultInjectingEnv::Op;

namespace {

// What a test wrote: acknowledged ids must read back exactly; ids whose write failed may be
// absent or exact (the outcome of a failed write is unknown to its caller), never anything else.
struct Ledger {
  std::set<uint64_t> acked;
  std::set<uint64_t> failed;
  std::vector<Status> errors;

  // Puts fresh ids [from, to), recording each outcome.
  void PutRange(DocStore& store, uint64_t from, uint64_t to) {
    for (uint64_t id = from; id < to; ++id) {
      const Status s = store.Put(id, DocFor(id));
      if (s.ok()) {
        acked.insert(id);
      } else {
        failed.insert(id);
        errors.push_back(s);
      }
    }
  }
};

// Empty when every read is as the ledger allows; otherwise the first problem.
std::string CheckReads(DocStore& store, const Ledger& ledger) {
  std::string doc;
  for (uint64_t id : ledger.acked) {
    const Status s = store.Get(id, &doc);
    if (!s.ok()) return "acknowledged id " + std::to_string(id) + ": " + s.ToString();
    if (doc != DocFor(id)) return "acknowledged id " + std::to_string(id) + " returned wrong data";
  }
  for (uint64_t id : ledger.failed) {
    const Status s = store.Get(id, &doc);
    if (s.ok() && doc != DocFor(id)) return "failed id " + std::to_string(id) + " has wrong data";
    if (!s.ok() && !s.IsNotFound()) return "failed id " + std::to_string(id) + ": " + s.ToString();
  }
  return {};
}

Options FaultOptions(FaultInjectingEnv* env, SyncPolicy sync = SyncPolicy::kNone) {
  Options options = SmallOptions(500);
  options.env = env;
  options.sync = sync;
  options.block_bytes = 1024;  // Many blocks, so segment writes happen often.
  return options;
}

// Collects what the store logs (from any of its threads).
class LogCapture {
 public:
  Logger logger() {
    return [this](LogLevel, std::string_view message) {
      std::lock_guard lock(mu_);
      lines_.emplace_back(message);
    };
  }
  // The first line holding every one of `parts`, or empty.
  std::string Find(std::initializer_list<std::string> parts) const {
    std::lock_guard lock(mu_);
    for (const std::string& line : lines_) {
      if (std::all_of(parts.begin(), parts.end(),
                      [&](const std::string& p) { return line.find(p) != std::string::npos; })) {
        return line;
      }
    }
    return {};
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> lines_;
};

// Reopens on the plain POSIX environment and checks every read.
std::string ReopenAndCheck(const QTemporaryDir& dir, const Ledger& ledger) {
  std::unique_ptr<DocStore> store;
  if (Status s = DocStore::Open(SmallOptions(500), dir.path().toStdString(), &store); !s.ok()) {
    return "reopen: " + s.ToString();
  }
  return CheckReads(*store, ledger);
}

}  // namespace

class FaultsTest : public QObject {
  Q_OBJECT

  // One failing write of a kind, in the middle of a stream of puts; the store must carry on.
  void WriteFailureMidStream(const Fault& fault, SyncPolicy sync, const char* expect_in_message) {
    QTemporaryDir dir;
    FaultInjectingEnv env;
    Ledger ledger;
    {
      auto store = OpenOrDie(FaultOptions(&env, sync), dir.path().toStdString());
      ledger.PutRange(*store, 0, 200);
      env.Inject(fault);
      ledger.PutRange(*store, 200, 1400);  // Crosses flushes of the in-memory index.
      QVERIFY2(env.faults_fired() >= 1, "the fault never fired");
      QVERIFY(!ledger.errors.empty());
      const std::string message = ledger.errors.front().ToString();
      QVERIFY2(message.find(expect_in_message) != std::string::npos, message.c_str());
      // The disk is healthy again: writes go on and everything acknowledged reads back.
      env.Heal();
      ledger.PutRange(*store, 1400, 1600);
      QVERIFY(ledger.acked.count(1599) == 1);
      const std::string problem = CheckReads(*store, ledger);
      QVERIFY2(problem.empty(), problem.c_str());
      const Status flushed = store->Flush();
      QVERIFY2(flushed.ok(), flushed.ToString().c_str());
    }
    const std::string problem = ReopenAndCheck(dir, ledger);
    QVERIFY2(problem.empty(), problem.c_str());
  }

 private Q_SLOTS:
  void failedLogWrite() {
    WriteFailureMidStream({.op = Op::kWrite, .path_contains = kWalSuffix, .after = 20},
                          SyncPolicy::kNone, "wal-");
  }

  void tornLogWrite() {
    WriteFailureMidStream(
        {.op = Op::kWrite, .path_contains = kWalSuffix, .after = 20, .partial_bytes = 9},
        SyncPolicy::kNone, "wal-");
  }

  void failedSegmentWrite() {
    WriteFailureMidStream({.op = Op::kWrite, .path_contains = kSegmentSuffix, .after = 5},
                          SyncPolicy::kNone, "segment-");
  }

  void tornSegmentWrite() {
    WriteFailureMidStream(
        {.op = Op::kWrite, .path_contains = kSegmentSuffix, .after = 5, .partial_bytes = 100},
        SyncPolicy::kNone, "segment-");
  }

  // A failed fsync of the log is not healed by the disk recovering: the kernel may already have
  // dropped the pages it could not write, so a later fsync can succeed over a hole. The write it
  // was for fails, and so does every later write until a reopen replays what is really on disk;
  // reads go on throughout, and the reopened store has everything acknowledged and takes writes.
  void failedLogSyncStopsWritesUntilReopen_data() {
    QTest::addColumn<bool>("every_write");
    QTest::newRow("every-write") << true;
    QTest::newRow("interval") << false;
  }

  void failedLogSyncStopsWritesUntilReopen() {
    QFETCH(bool, every_write);
    const SyncPolicy sync = every_write ? SyncPolicy::kEveryWrite : SyncPolicy::kInterval;
    QTemporaryDir dir;
    FaultInjectingEnv env;
    Ledger ledger;
    {
      Options options = FaultOptions(&env, sync);
      options.sync_interval = std::chrono::milliseconds(20);
      auto store = OpenOrDie(options, dir.path().toStdString());
      ledger.PutRange(*store, 0, 200);
      QVERIFY(ledger.errors.empty());
      QVERIFY(store->GetStats().writes_refused.empty());
      env.Inject({.op = Op::kSync, .path_contains = kWalSuffix});
      // Every-write fails the next put; interval fails one soon after its background fsync.
      uint64_t next = 200;
      for (const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
           ledger.errors.empty() && next < 100000 && std::chrono::steady_clock::now() < until;
           next += 10) {
        ledger.PutRange(*store, next, next + 10);
        if (sync == SyncPolicy::kInterval) QTest::qWait(5);
      }
      QCOMPARE(env.faults_fired(), uint64_t{1});
      QVERIFY(!ledger.errors.empty());
      const std::string message = ledger.errors.front().ToString();
      QVERIFY2(
          message.find("fsync") != std::string::npos && message.find("reopen") != std::string::npos,
          message.c_str());
      // Its stats say so (telemetry's writes_refused, the alert RailyardWritesRefused).
      const std::string refused = store->GetStats().writes_refused;
      QVERIFY2(refused.find("fsync") != std::string::npos, refused.c_str());
      // The disk behaves again, but the store still refuses writes, and still serves reads.
      env.Heal();
      const size_t errors_before = ledger.errors.size();
      ledger.PutRange(*store, next, next + 20);
      QCOMPARE(ledger.errors.size(), errors_before + 20);
      const std::string problem = CheckReads(*store, ledger);
      QVERIFY2(problem.empty(), problem.c_str());
      (void)store->Close();  // It may report the failed log again; the reopen below decides.
    }
    const std::string problem = ReopenAndCheck(dir, ledger);
    QVERIFY2(problem.empty(), problem.c_str());
    std::unique_ptr<DocStore> reopened;
    QVERIFY(DocStore::Open(SmallOptions(500), dir.path().toStdString(), &reopened).ok());
    QVERIFY(reopened->Put(999999, DocFor(999999)).ok());
  }

  // With SyncPolicy::kInterval the log is fsynced an interval after a write, and not again while
  // nothing more is written: an idle node used to fsync its unchanged log every interval (ten
  // times a second by default, on every replica of a quiet fleet).
  void anIdleStoreLeavesItsLogAlone() {
    QTemporaryDir dir;
    FaultInjectingEnv env;
    env.TrackDurability();  // Counts every mutating operation (and skips the real fsyncs).
    Options options = FaultOptions(&env, SyncPolicy::kInterval);
    options.sync_interval = std::chrono::milliseconds(2);
    auto store = OpenOrDie(options, dir.path().toStdString());
    // Whether a sync of the log started after operation `at` (operation_count's clock).
    auto synced_after = [&env](uint64_t at) { return env.LatestSyncStart(kWalSuffix) > at; };
    QVERIFY(store->Put(1, DocFor(1)).ok());
    const uint64_t first_put = env.operation_count();
    QTRY_VERIFY_WITH_TIMEOUT(synced_after(first_put), 10000);
    const uint64_t operations = env.operation_count();
    // Idle for 100 intervals: no operation at all, so no fsync among them.
    QTest::qWait(200);
    QCOMPARE(env.operation_count(), operations);
    // The next write is synced again.
    QVERIFY(store->Put(2, DocFor(2)).ok());
    const uint64_t second_put = env.operation_count();
    QTRY_VERIFY_WITH_TIMEOUT(synced_after(second_put), 10000);
    QVERIFY(store->Close().ok());
  }

  // A follower's fetch makes the updater's queue durable up to its end first; fetches of an
  // unchanged queue sync nothing (they fsynced the segment each time: once a second per replica
  // of an idle updater), and a fetch after a new block syncs again.
  void fetchesOfAnUnchangedQueueSyncNothing() {
    QTemporaryDir dir;
    FaultInjectingEnv env;
    env.TrackDurability();
    Options options = FaultOptions(&env, SyncPolicy::kEveryWrite);
    options.seal_after = std::chrono::milliseconds(1);  // Blocks written out without a flush.
    auto store = OpenOrDie(options, dir.path().toStdString());
    auto segment_synced_after = [&env](uint64_t at) {
      return env.LatestSyncStart("segment-") > at;
    };
    // Every entry since `from` sealed into a block: a block still open would be written out by the
    // seal thread during the fetches below, and counted as one of their operations.
    auto written = [&store](LogPosition from, uint64_t entries) {
      return store->LagOf(from).entries >= entries;
    };
    const LogPosition start = store->QueueEnd();
    for (uint64_t id = 0; id < 50; ++id) QVERIFY(store->Put(id, DocFor(id)).ok());
    QTRY_VERIFY_WITH_TIMEOUT(written(start, 50), 10000);
    QueueChunk chunk;
    uint64_t before = env.operation_count();
    QVERIFY(store->ReadQueue(start, 1 << 20, &chunk).ok());
    QVERIFY(!chunk.blocks.empty());
    QVERIFY(segment_synced_after(before));  // The first fetch syncs what was written.
    const LogPosition end = store->QueueEnd();
    before = env.operation_count();
    for (int fetch = 0; fetch < 10; ++fetch) {
      QVERIFY(store->ReadQueue(end, 1 << 20, &chunk).ok());
      QVERIFY(chunk.blocks.empty());
    }
    QCOMPARE(env.operation_count(), before);  // No sync, nothing at all.
    QVERIFY(store->Put(1000, DocFor(1000)).ok());
    QTRY_VERIFY_WITH_TIMEOUT(written(end, 1), 10000);
    before = env.operation_count();
    QVERIFY(store->ReadQueue(end, 1 << 20, &chunk).ok());
    QVERIFY(!chunk.blocks.empty());
    QVERIFY(segment_synced_after(before));  // A new block: synced again.
    QVERIFY(store->Close().ok());
  }

  // A failed index write happens in the background: writers see it once the in-memory index
  // fills up, and writes resume once a retry succeeds.
  void failedIndexWrite() {
    QTemporaryDir dir;
    FaultInjectingEnv env;
    Ledger ledger;
    {
      auto store = OpenOrDie(FaultOptions(&env), dir.path().toStdString());
      env.Inject({.op = Op::kWrite, .path_contains = kIndexSuffix, .times = 0});
      ledger.PutRange(*store, 0, 1200);
      QVERIFY(!ledger.errors.empty());
      const std::string message = ledger.errors.front().ToString();
      QVERIFY2(message.find("index-") != std::string::npos, message.c_str());
      std::string problem = CheckReads(*store, ledger);
      QVERIFY2(problem.empty(), problem.c_str());
      env.Heal();
      // The background retries within about a second; bounded wait for writes to resume.
      QTRY_VERIFY_WITH_TIMEOUT(store->Put(5000, DocFor(5000)).ok(), 10000);
      ledger.acked.insert(5000);
      QVERIFY(store->Flush().ok());
      problem = CheckReads(*store, ledger);
      QVERIFY2(problem.empty(), problem.c_str());
    }
    const std::string problem = ReopenAndCheck(dir, ledger);
    QVERIFY2(problem.empty(), problem.c_str());
  }

  void failedManifestRename() {
    QTemporaryDir dir;
    FaultInjectingEnv env;
    Ledger ledger;
    {
      auto store = OpenOrDie(FaultOptions(&env), dir.path().toStdString());
      ledger.PutRange(*store, 0, 300);
      env.Inject({.op = Op::kRename, .path_contains = kManifestName});
      const Status s = store->Flush();
      QVERIFY2(!s.ok() && s.ToString().find("MANIFEST") != std::string::npos, s.ToString().c_str());
      const std::string problem = CheckReads(*store, ledger);
      QVERIFY2(problem.empty(), problem.c_str());
    }
    const std::string problem = ReopenAndCheck(dir, ledger);
    QVERIFY2(problem.empty(), problem.c_str());
  }

  // A full disk: writes fail with NoSpace and a clear message, reads go on, and once space comes
  // back writes succeed again.
  void diskFull() {
    QTemporaryDir dir;
    FaultInjectingEnv env;
    Ledger ledger;
    {
      auto store = OpenOrDie(FaultOptions(&env), dir.path().toStdString());
      ledger.PutRange(*store, 0, 100);
      env.SetSpaceLimit(64 * 1024);
      ledger.PutRange(*store, 100, 2000);
      QVERIFY(!ledger.errors.empty());
      QCOMPARE(ledger.errors.front().code(), Status::Code::kNoSpace);
      QVERIFY2(ledger.errors.front().message().find("No space") != std::string::npos,
               ledger.errors.front().ToString().c_str());
      QVERIFY(ledger.acked.size() > 100);  // Some fitted before the disk filled.
      std::string problem = CheckReads(*store, ledger);
      QVERIFY2(problem.empty(), problem.c_str());
      env.Heal();
      QTRY_VERIFY_WITH_TIMEOUT(store->Put(9000, DocFor(9000)).ok(), 10000);
      ledger.acked.insert(9000);
      problem = CheckReads(*store, ledger);
      QVERIFY2(problem.empty(), problem.c_str());
    }
    const std::string problem = ReopenAndCheck(dir, ledger);
    QVERIFY2(problem.empty(), problem.c_str());
  }

  // The store's LOCK cannot be taken: open fails, naming the file and the reason (Busy when
  // another holder has it), and touches nothing, so a later open finds every document.
  void failedLock_data() {
    QTest::addColumn<int>("error");
    QTest::addColumn<bool>("busy");
    QTest::newRow("held") << EWOULDBLOCK << true;
    QTest::newRow("io-error") << EIO << false;
  }
  void failedLock() {
    QFETCH(int, error);
    QFETCH(bool, busy);
    QTemporaryDir dir;
    Ledger ledger;
    {
      auto store = OpenOrDie(SmallOptions(500), dir.path().toStdString());
      ledger.PutRange(*store, 0, 700);  // Some in an index file, some only in the log.
    }
    FaultInjectingEnv env;
    env.Inject({.op = Op::kLock, .path_contains = kLockName, .error = error});
    std::unique_ptr<DocStore> store;
    const Status s = DocStore::Open(FaultOptions(&env), dir.path().toStdString(), &store);
    QCOMPARE(env.faults_fired(), uint64_t{1});
    QVERIFY(!s.ok());
    QCOMPARE(s.code() == Status::Code::kBusy, busy);
    const std::string message = s.ToString();
    const std::string lock_path = (QDir(dir.path()).filePath(kLockName)).toStdString();
    QVERIFY2(message.find(lock_path) != std::string::npos, message.c_str());
    QVERIFY2(message.find(std::strerror(error)) != std::string::npos, message.c_str());
    // Healed, the same environment opens the store with everything in it.
    env.Heal();
    QVERIFY(DocStore::Open(FaultOptions(&env), dir.path().toStdString(), &store).ok());
    const std::string problem = CheckReads(*store, ledger);
    QVERIFY2(problem.empty(), problem.c_str());
  }

  // An obsolete file that cannot be unlinked (a flushed log, a compacted index) is reported with
  // its name and the reason, and costs nothing else: writes and reads go on, and a reopen finds
  // everything (and removes the leftover log, which the manifest no longer needs).
  void failedUnlink_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("log") << QString(kWalSuffix);
    QTest::newRow("index") << QString(kIndexSuffix);
  }
  void failedUnlink() {
    QFETCH(QString, file);
    QTemporaryDir dir;
    FaultInjectingEnv env;
    LogCapture log;
    Ledger ledger;
    std::string leftover;
    {
      Options options = FaultOptions(&env);
      options.logger = log.logger();
      auto store = OpenOrDie(options, dir.path().toStdString());
      env.Inject({.op = Op::kRemove, .path_contains = file.toStdString(), .times = 0});
      ledger.PutRange(*store, 0, 1200);  // Flushes, each removing a log and merging indexes.
      QVERIFY(store->Flush().ok());
      QVERIFY(store->CompactAll().ok());
      QVERIFY2(ledger.errors.empty(),
               ledger.errors.empty() ? "" : ledger.errors[0].ToString().c_str());
      QVERIFY2(env.faults_fired() >= 1, "no file was removed");
      leftover = log.Find({"could not delete", file.toStdString(), std::strerror(EIO)});
      QVERIFY2(!leftover.empty(), "no message names the file and the reason");
      ledger.PutRange(*store, 1200, 1300);
      const std::string problem = CheckReads(*store, ledger);
      QVERIFY2(problem.empty(), problem.c_str());
    }
    const std::string problem = ReopenAndCheck(dir, ledger);
    QVERIFY2(problem.empty(), problem.c_str());
    if (file == QLatin1String(kWalSuffix)) {
      // "could not delete <path>: <reason>": the reopen above removed that old log.
      const std::string path =
          leftover.substr(std::strlen("could not delete "),
                          leftover.rfind(": ") - std::strlen("could not delete "));
      QVERIFY2(!QFile::exists(QString::fromStdString(path)), path.c_str());
    }
  }

  // The store's folder cannot be listed: open fails with the folder and the reason rather than
  // missing logs or segments it could not see; a later open finds every document.
  void failedListing() {
    QTemporaryDir dir;
    Ledger ledger;
    {
      auto store = OpenOrDie(SmallOptions(500), dir.path().toStdString());
      ledger.PutRange(*store, 0, 700);
    }
    FaultInjectingEnv env;
    env.Inject({.op = Op::kList, .path_contains = dir.path().toStdString()});
    std::unique_ptr<DocStore> store;
    const Status s = DocStore::Open(FaultOptions(&env), dir.path().toStdString(), &store);
    QCOMPARE(env.faults_fired(), uint64_t{1});
    const std::string message = s.ToString();
    QVERIFY2(!s.ok() && message.find(dir.path().toStdString()) != std::string::npos &&
                 message.find(std::strerror(EIO)) != std::string::npos,
             message.c_str());
    const std::string problem = ReopenAndCheck(dir, ledger);
    QVERIFY2(problem.empty(), problem.c_str());
  }

  // Corrupted reads of Bloom pages only cost a disk lookup: every read stays exact.
  void corruptedBloomReads() {
    QTemporaryDir dir;
    FaultInjectingEnv env;
    Ledger ledger;
    auto store = OpenOrDie(FaultOptions(&env), dir.path().toStdString());
    ledger.PutRange(*store, 0, 2000);
    QVERIFY(store->Flush().ok());
    env.Inject({.op = Op::kRead, .path_contains = kBloomSuffix, .times = 0, .corrupt = true});
    QTest::qWait(300);  // Let the pager re-rank and read pages through the fault.
    const std::string problem = CheckReads(*store, ledger);
    QVERIFY2(problem.empty(), problem.c_str());
    std::string doc;
    QVERIFY(store->Get(999999, &doc).IsNotFound());
  }

  // A corrupted read of the log during recovery reports the damaged records' ids as corrupt (or
  // recovers them); the file itself is intact, so a clean reopen later finds everything.
  void corruptedLogReplay() {
    QTemporaryDir dir;
    Ledger ledger;
    {
      auto store = OpenOrDie(SmallOptions(5000), dir.path().toStdString());
      ledger.PutRange(*store, 0, 300);  // Stays in the log: no flush.
    }
    {
      FaultInjectingEnv env;
      env.Inject({.op = Op::kRead, .path_contains = kWalSuffix, .corrupt = true});
      Options options = FaultOptions(&env);
      options.memtable_entries = 5000;
      std::unique_ptr<DocStore> store;
      const Status opened = DocStore::Open(options, dir.path().toStdString(), &store);
      QCOMPARE(env.faults_fired(), uint64_t{1});
      if (opened.ok()) {
        std::string doc;
        for (uint64_t id : ledger.acked) {
          const Status s = store->Get(id, &doc);
          QVERIFY2(s.ok() ? doc == DocFor(id) : (s.IsCorruption() || s.IsNotFound()),
                   s.ToString().c_str());
        }
      } else {
        QVERIFY2(opened.IsCorruption(), opened.ToString().c_str());
      }
    }
    const std::string problem = ReopenAndCheck(dir, ledger);
    QVERIFY2(problem.empty(), problem.c_str());
  }

  // A bit flipped in memory-mapped segment or index bytes: Corruption for what it affects, exact
  // data for everything else, never wrong data.
  void corruptedMappedReads_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("segment") << QString(kSegmentSuffix);
    QTest::newRow("index") << QString(kIndexSuffix);
  }
  void corruptedMappedReads() {
    QFETCH(QString, file);
    QTemporaryDir dir;
    FaultInjectingEnv env;
    Ledger ledger;
    Options options = FaultOptions(&env);
    // Index pages copied into memory are not read from the mapping: keep them mapped here.
    options.index_memory_budget = 0;
    {
      auto store = OpenOrDie(options, dir.path().toStdString());
      ledger.PutRange(*store, 0, 400);
      QVERIFY(store->Flush().ok());
      QVERIFY(env.CorruptMapped(file.toStdString(), 200) >= 1);
      int corrupted = 0;
      std::string doc;
      for (uint64_t id : ledger.acked) {
        const Status s = store->Get(id, &doc);
        if (s.IsCorruption()) {
          ++corrupted;
          continue;
        }
        QVERIFY2(s.ok() && doc == DocFor(id), s.ToString().c_str());
      }
      QVERIFY2(corrupted > 0, "the flipped bit went unnoticed");
      QVERIFY(corrupted < static_cast<int>(ledger.acked.size()));
    }
    const std::string problem = ReopenAndCheck(dir, ledger);
    QVERIFY2(problem.empty(), problem.c_str());
  }
};

RAILYARD_QTEST_GUILESS_MAIN(FaultsTest)
#include "tst_faults.moc"
