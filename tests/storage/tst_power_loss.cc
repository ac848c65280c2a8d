// SPDX-License-Identifier: Apache-2.0
// docs/guide.md's durability table under a machine crash: FaultInjectingEnv forgets every byte and
// every directory change (creation, rename, removal) that was not fsynced, as a power loss would
// (LevelDB's fault_injection_test is the model), at many random points of a stream of writes,
// flushes and compactions. After each, the store reopens, says what it recovered, and holds exactly
// the writes of some prefix of the stream: never less than every write whose log was fsynced after
// it was acknowledged (every write, under every-write), never a damaged document.
#include <fcntl.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <random>

#include "storage/fault_env.h"
#include "storage/filenames.h"
#include "tests/storage/storage_test_support.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_depth.h"

using namespace railyard::storage;
using namespace railyard::storage::testing;

namespace {

constexpr uint64_t kIds = 40;

// Every id's document; nullopt: absent.
using State = std::map<uint64_t, std::optional<std::string>>;

struct WriteRecord {
  uint64_t id = 0;
  std::optional<std::string> doc;  // nullopt: a deletion.
  uint64_t acked_at = 0;           // The env's operation clock when the call returned.
  bool acked_before_cut = false;   // The power was still on when it returned.
};

// What the store logs, from any of its threads.
class LogCapture {
 public:
  Logger logger() {
    return [this](LogLevel level, std::string_view message) {
      std::lock_guard lock(mu_);
      lines_.push_back({level, std::string(message)});
    };
  }
  void Clear() {
    std::lock_guard lock(mu_);
    lines_.clear();
  }
  std::string Find(const std::string& part) const {
    std::lock_guard lock(mu_);
    for (const auto& [level, line] : lines_) {
      if (line.find(part) != std::string::npos) return line;
    }
    return {};
  }
  std::string FirstError() const {
    std::lock_guard lock(mu_);
    for (const auto& [level, line] : lines_) {
      if (level == LogLevel::kError) return line;
    }
    return {};
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<LogLevel, std::string>> lines_;
};

std::string ReadFile(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return "<missing>";
  return f.readAll().toStdString();
}

void Apply(const WriteRecord& w, State* state) { (*state)[w.id] = w.doc; }

uint64_t EnvNumber(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  return value ? std::strtoull(value, nullptr, 10) : fallback;
}

}  // namespace

class PowerLossTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The model itself: unsynced bytes, unsynced names and unsynced renames are forgotten.
  void envForgetsWhatWasNotSynced() {
    QTemporaryDir dir;
    const std::string root = dir.path().toStdString();
    {
      QFile old(dir.filePath("MANIFEST"));
      QVERIFY(old.open(QIODevice::WriteOnly));
      old.write("old");
      QFile log(dir.filePath("old-log"));
      QVERIFY(log.open(QIODevice::WriteOnly));
      log.write("log");
    }
    FaultInjectingEnv env;
    env.TrackDurability();
    const int append = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC;
    size_t n = 0;
    int a = -1, b = -1, tmp = -1;
    QCOMPARE(env.Open(root + "/a", append, &a), 0);
    QCOMPARE(env.Write(root + "/a", a, "12345", 5, &n), 0);
    QCOMPARE(env.Sync(root + "/a", a), 0);
    QCOMPARE(env.Write(root + "/a", a, "678", 3, &n), 0);
    QCOMPARE(env.SyncDirectory(root), 0);  // a's name is durable; its last 3 bytes are not.
    QCOMPARE(env.Open(root + "/b", append, &b), 0);
    QCOMPARE(env.Write(root + "/b", b, "x", 1, &n), 0);
    QCOMPARE(env.Sync(root + "/b", b), 0);  // Synced bytes, but the name never was.
    QCOMPARE(env.Open(root + "/MANIFEST.tmp", append, &tmp), 0);
    QCOMPARE(env.Write(root + "/MANIFEST.tmp", tmp, "new", 3, &n), 0);
    QCOMPARE(env.Sync(root + "/MANIFEST.tmp", tmp), 0);
    QCOMPARE(env.Rename(root + "/MANIFEST.tmp", root + "/MANIFEST"), 0);
    QCOMPARE(env.RemoveFile(root + "/old-log"), 0);  // Not durable without a directory sync.
    for (int fd : {a, b, tmp}) ::close(fd);
    QCOMPARE(ReadFile(dir.filePath("MANIFEST")), std::string("new"));

    QCOMPARE(env.LosePower(), 0);
    QCOMPARE(ReadFile(dir.filePath("a")), std::string("12345"));
    QVERIFY(!QFile::exists(dir.filePath("b")));
    QCOMPARE(ReadFile(dir.filePath("MANIFEST")), std::string("old"));  // The rename is undone.
    QVERIFY(!QFile::exists(dir.filePath("MANIFEST.tmp")));
    QCOMPARE(ReadFile(dir.filePath("old-log")), std::string("log"));  // The removal is undone.

    // A directory sync makes a rename durable; writes after the cut are lost whatever follows.
    QCOMPARE(env.Open(root + "/MANIFEST.tmp", append, &tmp), 0);
    QCOMPARE(env.Write(root + "/MANIFEST.tmp", tmp, "new", 3, &n), 0);
    QCOMPARE(env.Sync(root + "/MANIFEST.tmp", tmp), 0);
    QCOMPARE(env.Rename(root + "/MANIFEST.tmp", root + "/MANIFEST"), 0);
    QCOMPARE(env.RemoveFile(root + "/old-log"), 0);
    QCOMPARE(env.SyncDirectory(root), 0);
    QCOMPARE(env.Open(root + "/a", append, &a), 0);
    env.CutPowerAfter(1);
    QVERIFY(!env.power_cut());
    const std::string late(1000, '9');
    QCOMPARE(env.Write(root + "/a", a, late.data(), late.size(), &n), 0);
    QVERIFY(env.power_cut());
    QCOMPARE(env.Sync(root + "/a", a), 0);  // Too late: the power is out.
    ::close(tmp);
    ::close(a);
    // Even a disk that kept some unsynced bytes cannot keep what was written after the cut.
    QCOMPARE(env.LosePower(/*torn_seed=*/1), 0);
    QCOMPARE(ReadFile(dir.filePath("MANIFEST")), std::string("new"));
    QVERIFY(!QFile::exists(dir.filePath("old-log")));
    QCOMPARE(ReadFile(dir.filePath("a")), std::string("12345"));
  }

  // The power went while the log rotated: the new log was created (and its name made durable)
  // but the old one was not yet fsynced whole, and the disk kept part of a record. That torn tail
  // is not damage: the old log is the last one with records.
  void tornTailBeforeAnEmptyLogIsNotDamage() {
    QTemporaryDir dir;
    LogCapture logs;
    Options options = SmallOptions(1000);
    options.logger = logs.logger();
    std::unique_ptr<DocStore> store = OpenOrDie(options, dir.path().toStdString());
    for (uint64_t id = 0; id < 5; ++id) QVERIFY(store->Put(id, DocFor(id)).ok());
    store.reset();
    const QStringList wals = QDir(dir.path()).entryList({"wal-*.log"}, QDir::Files, QDir::Name);
    QVERIFY(!wals.isEmpty());
    uint64_t last = 0;
    QVERIFY(ParseNumberedName(wals.last().toStdString(), kWalPrefix, kWalSuffix, &last));
    {
      QFile torn(dir.filePath(wals.last()));
      QVERIFY(torn.open(QIODevice::Append));
      torn.write("RYW", 3);  // The first bytes of a record's header.
      QFile next(
          dir.filePath(QString::fromStdString(NumberedName(kWalPrefix, last + 1, kWalSuffix))));
      QVERIFY(next.open(QIODevice::WriteOnly));
    }
    logs.Clear();
    store = OpenOrDie(options, dir.path().toStdString());
    QVERIFY2(logs.FirstError().empty(), logs.FirstError().c_str());
    QVERIFY2(!logs.Find("3 torn bytes cut off").empty(), logs.Find("recovery of").c_str());
    QCOMPARE(store->GetStats().corruptions_seen, uint64_t{0});
    for (uint64_t id = 0; id < 5; ++id) {
      std::string doc;
      QVERIFY(store->Get(id, &doc).ok());
      QCOMPARE(doc, DocFor(id));
    }
  }

  // Under interval the sync thread alone (no log rotation, no close) makes a write survive a
  // power loss once an interval has passed.
  void intervalSyncAloneMakesWritesDurable() {
    QTemporaryDir dir;
    FaultInjectingEnv env;
    env.TrackDurability();
    Options options = SmallOptions(1000);
    options.env = &env;
    options.sync = SyncPolicy::kInterval;
    options.sync_interval = std::chrono::milliseconds(5);
    std::unique_ptr<DocStore> store = OpenOrDie(options, dir.path().toStdString());
    QVERIFY(store->Put(7, DocFor(7)).ok());
    const uint64_t acked_at = env.operation_count();
    // Bounded: the sync thread runs every 5 ms; 10 s is only a guard.
    for (int i = 0; i < 1000 && env.LatestSyncStart(kWalPrefix) <= acked_at; ++i) {
      QTest::qWait(10);
    }
    QVERIFY2(env.LatestSyncStart(kWalPrefix) > acked_at, "no log fsync after the write");
    env.CutPowerAfter(0);  // Out now: the close's own fsync comes too late.
    store.reset();
    QCOMPARE(env.LosePower(), 0);
    store = OpenOrDie(options, dir.path().toStdString());
    std::string doc;
    QVERIFY(store->Get(7, &doc).ok());
    QCOMPARE(doc, DocFor(7));
  }

  void randomCutPoints_data() {
    QTest::addColumn<int>("sync");
    QTest::newRow("none") << static_cast<int>(SyncPolicy::kNone);
    QTest::newRow("interval") << static_cast<int>(SyncPolicy::kInterval);
    QTest::newRow("every-write") << static_cast<int>(SyncPolicy::kEveryWrite);
  }

  // RAILYARD_POWER_CUTS cut points per mode (default 200; the `slow` ctest runs more), from seed
  // RAILYARD_POWER_SEED (printed, so a failure can be replayed).
  void randomCutPoints() {
    QFETCH(int, sync);
    const SyncPolicy policy = static_cast<SyncPolicy>(sync);
    const uint64_t cuts =
        EnvNumber("RAILYARD_POWER_CUTS", railyard::testing::SanitizerScaled<uint64_t>(200, 4, 50));
    const uint64_t seed = EnvNumber("RAILYARD_POWER_SEED", 20261124) + static_cast<uint64_t>(sync);
    qInfo("%llu cut points, seed %llu", static_cast<unsigned long long>(cuts),
          static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);

    QTemporaryDir dir;
    FaultInjectingEnv env;
    env.TrackDurability();
    LogCapture logs;
    Options options = SmallOptions(16);  // Flushes, log rotations and compactions every few writes.
    options.env = &env;
    options.sync = policy;
    options.sync_interval = std::chrono::milliseconds(1);
    options.block_bytes = 256;
    options.segment_bytes = 4096;
    options.logger = logs.logger();
    const std::string path = dir.path().toStdString();

    std::unique_ptr<DocStore> store;
    QVERIFY(DocStore::Open(options, path, &store).ok());
    State state;  // What the store holds after the last recovery.
    uint64_t lost_total = 0, must_total = 0, writes_total = 0;
    for (uint64_t round = 0; round < cuts; ++round) {
      env.CutPowerAfter(1 + rng() % 200);
      std::vector<WriteRecord> writes;
      const uint64_t planned = 1 + rng() % 100;
      for (uint64_t i = 0; i < planned; ++i) {
        WriteRecord w;
        w.id = rng() % kIds;
        if (rng() % 8 != 0) {
          w.doc = "r" + std::to_string(round) + "w" + std::to_string(i) + ":" +
                  std::string(rng() % 300, static_cast<char>('a' + i % 26));
        }
        const Status s = w.doc ? store->Put(w.id, *w.doc) : store->Delete(w.id);
        QVERIFY2(s.ok(), s.ToString().c_str());  // A power cut is invisible to the process.
        w.acked_before_cut = !env.power_cut();
        w.acked_at = env.operation_count();
        writes.push_back(std::move(w));
        if (!writes.back().acked_before_cut) break;  // The machine is dead: nothing more.
      }
      store.reset();  // Closes (its fsyncs count only if the power is still on).
      const uint64_t last_log_sync = env.LatestSyncStart(kWalPrefix);
      // Every other round the disk wrote part of the unsynced bytes before the power went.
      QCOMPARE(env.LosePower(round % 2 == 0 ? 0 : rng() | 1), 0);

      logs.Clear();
      const Status opened = DocStore::Open(options, path, &store);
      QVERIFY2(opened.ok(), ("round " + std::to_string(round) + ": " + opened.ToString()).c_str());
      QVERIFY2(!logs.Find("recovery of").empty(), "the store did not say what it recovered");
      QVERIFY2(logs.FirstError().empty(), logs.FirstError().c_str());

      // Writes that must have survived: those a later log fsync covered (and, under
      // every-write, each one acknowledged while the power was on).
      size_t must = 0;
      for (size_t k = 0; k < writes.size(); ++k) {
        if (writes[k].acked_at < last_log_sync) must = k + 1;
        if (policy == SyncPolicy::kEveryWrite && writes[k].acked_before_cut) must = k + 1;
      }
      State got;
      for (uint64_t id = 0; id < kIds; ++id) {
        std::string doc;
        const Status s = store->Get(id, &doc);
        QVERIFY2(s.ok() || s.IsNotFound(), s.ToString().c_str());
        if (s.ok()) got[id] = doc;
      }
      // The store holds the state after some prefix of at least `must` writes, nothing else.
      State expected = state;
      for (uint64_t id = 0; id < kIds; ++id) expected.try_emplace(id);
      for (uint64_t id = 0; id < kIds; ++id) got.try_emplace(id);
      for (size_t k = 0; k < must; ++k) Apply(writes[k], &expected);
      std::optional<size_t> kept;
      for (size_t k = must;; ++k) {
        if (expected == got) {
          kept = k;
          break;
        }
        if (k == writes.size()) break;
        Apply(writes[k], &expected);
      }
      QVERIFY2(kept.has_value(),
               ("round " + std::to_string(round) + ": after " + std::to_string(writes.size()) +
                " writes (" + std::to_string(must) + " fsynced) the store holds a state no " +
                "prefix of them leads to")
                   .c_str());
      QCOMPARE(store->GetStats().corruptions_seen, uint64_t{0});
      lost_total += writes.size() - *kept;
      must_total += must;
      writes_total += writes.size();
      state = got;
    }
    qInfo("%llu writes, %llu of them fsynced before the cut, %llu lost",
          static_cast<unsigned long long>(writes_total),
          static_cast<unsigned long long>(must_total), static_cast<unsigned long long>(lost_total));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(PowerLossTest)
#include "tst_power_loss.moc"
