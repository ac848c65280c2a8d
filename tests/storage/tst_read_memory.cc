// SPDX-License-Identifier: Apache-2.0
// Reads under memory pressure: on-disk indexes copied into memory within their budget
// (Options::index_memory_budget), and when a segment read asks for its block's pages up front
// (storage/block_prefetch.h).
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <chrono>

#include <thread>

#include "storage/block_prefetch.h"
#include "tests/storage/storage_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::storage;
using namespace railyard::storage::testing;

namespace {

constexpr uint64_t kKeys = 7000;  // With 1000-entry memtables: several indexes and compactions.

// The bytes an index's copy takes: its whole pages (the fence array and footer stay mapped).
uint64_t PageBytes(const IndexStats& index) { return index.bytes / 4096 * 4096; }

uint64_t InMemoryPageBytes(const Stats& stats) {
  uint64_t sum = 0;
  for (const IndexStats& index : stats.indexes) sum += index.in_memory ? PageBytes(index) : 0;
  return sum;
}

void ExpectAllReadable(DocStore& store, uint64_t generation = 0) {
  std::string doc;
  for (uint64_t id = 0; id < kKeys; ++id) {
    const Status s = store.Get(id, &doc);
    QVERIFY2(s.ok(), qPrintable(QString::fromStdString(s.ToString())));
    QCOMPARE(doc, DocFor(id, static_cast<uint32_t>(generation)));
  }
  QVERIFY(store.Get(kKeys + 1, &doc).IsNotFound());
}

}  // namespace

class ReadMemoryTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // With room for all of them, every on-disk index is read from memory, after flushes, after a
  // compaction replaced them all, and after a reopen.
  void everyIndexIsCopiedWhenTheBudgetHasRoom() {
    QTemporaryDir dir;
    const Options options = SmallOptions(1000);  // Default budget: 256 MiB.
    {
      auto store = OpenOrDie(options, dir.path().toStdString());
      for (uint64_t id = 0; id < kKeys; ++id) QVERIFY(store->Put(id, DocFor(id)).ok());
      QVERIFY(store->Flush().ok());
      Stats stats = store->GetStats();
      QVERIFY(stats.indexes.size() >= 2);
      for (const IndexStats& index : stats.indexes) QVERIFY(index.in_memory);
      QCOMPARE(stats.index_memory_bytes, InMemoryPageBytes(stats));
      QCOMPARE(stats.index_memory_budget_bytes, uint64_t{options.index_memory_budget});
      ExpectAllReadable(*store);

      QVERIFY(store->CompactAll().ok());
      stats = store->GetStats();
      QCOMPARE(stats.indexes.size(), size_t{1});
      QVERIFY(stats.indexes[0].in_memory);
      // The replaced indexes' copies are gone with them.
      QCOMPARE(stats.index_memory_bytes, PageBytes(stats.indexes[0]));
      ExpectAllReadable(*store);
    }
    auto store = OpenOrDie(options, dir.path().toStdString());
    const Stats stats = store->GetStats();
    QVERIFY(stats.indexes[0].in_memory);
    QCOMPARE(stats.index_memory_bytes, PageBytes(stats.indexes[0]));
    ExpectAllReadable(*store);
  }

  // A budget with room for some indexes only: never exceeded, at any flush or compaction, and
  // reads are the same whether their index is copied or mapped.
  void theBudgetIsNeverExceeded() {
    QTemporaryDir dir;
    Options options = SmallOptions(1000);
    options.index_memory_budget = 12 * 4096;  // About 2,400 entries of 7,000.
    auto store = OpenOrDie(options, dir.path().toStdString());
    for (uint32_t generation = 0; generation < 2; ++generation) {
      for (uint64_t id = 0; id < kKeys; ++id) {
        QVERIFY(store->Put(id, DocFor(id, generation)).ok());
        if (id % 500 == 0) {
          const Stats stats = store->GetStats();
          QVERIFY(stats.index_memory_bytes <= options.index_memory_budget);
        }
      }
      QVERIFY(store->Flush().ok());
      const Stats stats = store->GetStats();
      QVERIFY(stats.index_memory_bytes <= options.index_memory_budget);
      QCOMPARE(stats.index_memory_bytes, InMemoryPageBytes(stats));
      bool some_mapped = false, some_copied = false;
      for (const IndexStats& index : stats.indexes) {
        (index.in_memory ? some_copied : some_mapped) = true;
      }
      QVERIFY(some_mapped);
      QVERIFY(some_copied);
      ExpectAllReadable(*store, generation);
    }
  }

  // Zero keeps every index mapped, as before the budget existed.
  void aZeroBudgetKeepsEveryIndexMapped() {
    QTemporaryDir dir;
    Options options = SmallOptions(1000);
    options.index_memory_budget = 0;
    auto store = OpenOrDie(options, dir.path().toStdString());
    for (uint64_t id = 0; id < kKeys; ++id) QVERIFY(store->Put(id, DocFor(id)).ok());
    QVERIFY(store->Flush().ok());
    const Stats stats = store->GetStats();
    for (const IndexStats& index : stats.indexes) QVERIFY(!index.in_memory);
    QCOMPARE(stats.index_memory_bytes, uint64_t{0});
    ExpectAllReadable(*store);
  }

  // Lookups read the copy, not the file: damage reaching the file after the copy was made (here a
  // byte flipped on disk, which the mapping would show) does not reach reads.
  void lookupsReadTheCopyNotTheFile() {
    QTemporaryDir dir;
    const Options options = SmallOptions(10000);
    {
      auto store = OpenOrDie(options, dir.path().toStdString());
      for (uint64_t id = 0; id < kKeys; ++id) QVERIFY(store->Put(id, DocFor(id)).ok());
      QVERIFY(store->Flush().ok());
    }
    auto store = OpenOrDie(options, dir.path().toStdString());
    QVERIFY(store->GetStats().indexes.at(0).in_memory);
    const QStringList files = QDir(dir.path()).entryList({"index-*.idx"}, QDir::Files);
    QCOMPARE(files.size(), 1);
    QFile file(dir.filePath(files.front()));
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.seek(100));  // Page 0: the lowest 204 ids.
    QVERIFY(file.putChar('\x5a') && file.putChar('\xa5'));
    file.close();
    ExpectAllReadable(*store);
    QCOMPARE(store->GetStats().corruptions_seen, uint64_t{0});
  }

  // Advice is given for a bounded run of reads after one that waited, and never while reads are
  // fast.
  void blockAdviceFollowsSlowReads() {
    using std::chrono::microseconds;
    BlockPrefetchPolicy policy;
    QVERIFY(!policy.ShouldAdvise());
    policy.Observe(microseconds(2));
    QVERIFY(!policy.ShouldAdvise());
    policy.Observe(BlockPrefetchPolicy::kSlowRead);
    for (uint32_t i = 0; i < BlockPrefetchPolicy::kAdvisedReads; ++i) {
      QVERIFY(policy.ShouldAdvise());
      policy.Observe(microseconds(1));  // Served from the page cache now.
    }
    QVERIFY(!policy.ShouldAdvise());
    // A slow read while advising starts the run again.
    policy.Observe(microseconds(500));
    QVERIFY(policy.ShouldAdvise());
    policy.Observe(microseconds(500));
    uint32_t advised = 0;
    while (advised < 10 * BlockPrefetchPolicy::kAdvisedReads && policy.ShouldAdvise()) ++advised;
    QCOMPARE(advised, BlockPrefetchPolicy::kAdvisedReads);
  }

  // One read in kTimedEvery on a thread is timed, on every thread alike, so an advised run of
  // kAdvisedReads reads holds several timed ones that can extend it.
  void oneReadInSixteenIsTimedOnEachThread() {
    static_assert(BlockPrefetchPolicy::kAdvisedReads >= 2 * BlockPrefetchPolicy::kTimedEvery);
    auto count_timed = [] {
      uint32_t timed = 0;
      for (uint32_t i = 0; i < 10 * BlockPrefetchPolicy::kTimedEvery; ++i) {
        timed += BlockPrefetchPolicy::ShouldTime() ? 1 : 0;
      }
      return timed;
    };
    QCOMPARE(count_timed(), 10u);
    uint32_t other_thread = 0;
    std::thread([&] { other_thread = count_timed(); }).join();
    QCOMPARE(other_thread, 10u);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ReadMemoryTest)
#include "tst_read_memory.moc"
