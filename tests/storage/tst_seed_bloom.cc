// SPDX-License-Identifier: Apache-2.0
// The docstore seed's Bloom example, on a real store: "the in-memory index contains 12.5% of the
// jobs, the newest on-disk index contains 12.5%, the next on-disk index contains 25%, and the
// oldest index contains 50% ... If the in-memory index doesn't contain the job, then there's
// a 14.3% chance that the newest on-disk index contains it. If not, a 33% chance the 2nd on-disk
// index contains it. If the job is not contained in the first three indexes, then there is a 100%
// chance it is in the oldest index. Having a Bloom filter on the oldest index is not useful." So
// the chances of "no" are 85.7%, 66.7% and 0%. The store must rank its filters with those figures,
// its filters must answer "no" that often when asked for the jobs the example assumes, and its
// pager must keep none of the oldest index's pages in memory.
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include "tests/storage/storage_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::storage;
using namespace railyard::storage::testing;

namespace {

constexpr uint64_t kBatch = 1000;  // One memtable: 12.5% of the example's jobs.

// P(no) of the seed's three on-disk indexes, newest first: 1 - 1/7, 1 - 2/6, 1 - 4/4.
constexpr double kSeedNo[] = {6.0 / 7.0, 4.0 / 6.0, 0.0};

// The seed's four indexes: 7 flushed batches compact into 4 + 2 + 1 (the seed's size rule), and
// an eighth batch stays in the memtable.
std::unique_ptr<DocStore> OpenSeedExample(const std::string& directory) {
  Options options = SmallOptions(kBatch);
  auto store = OpenOrDie(options, directory);
  for (uint64_t id = 0; id < 7 * kBatch; ++id) {
    if (!store->Put(id, DocFor(id)).ok()) qFatal("put %llu", static_cast<unsigned long long>(id));
  }
  if (!store->Flush().ok()) qFatal("flush");
  for (uint64_t id = 7 * kBatch; id < 8 * kBatch; ++id) {
    if (!store->Put(id, DocFor(id)).ok()) qFatal("put %llu", static_cast<unsigned long long>(id));
  }
  return store;
}

bool IndexResident(const Stats& stats, uint64_t index) {
  bool any = false;
  for (const BloomPageStats& page : stats.bloom_pages) {
    if (page.index != index) continue;
    if (!page.resident) return false;
    any = true;
  }
  return any;
}

}  // namespace

class SeedBloomTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void sizeRuleGivesTheSeedsChancesOfNo() {
    QTemporaryDir dir;
    auto store = OpenSeedExample(dir.path().toStdString());
    const Stats stats = store->GetStats();
    QCOMPARE(stats.memtable_entries, kBatch);
    QCOMPARE(stats.indexes.size(), size_t{3});
    QCOMPARE(stats.indexes[0].entries, kBatch);      // 12.5%
    QCOMPARE(stats.indexes[1].entries, 2 * kBatch);  // 25%
    QCOMPARE(stats.indexes[2].entries, 4 * kBatch);  // 50%
    for (size_t i = 0; i < 3; ++i) {
      qInfo("index %zu: chance of no %.4f (seed %.4f)", i, stats.indexes[i].p_no, kSeedNo[i]);
      QVERIFY2(std::abs(stats.indexes[i].p_no - kSeedNo[i]) < 1e-9,
               qPrintable(QString::number(stats.indexes[i].p_no)));
      // Every page of the index is ranked with it until it has answered enough lookups.
      for (const BloomPageStats& page : stats.bloom_pages) {
        if (page.index == stats.indexes[i].id) QCOMPARE(page.p_no, stats.indexes[i].p_no);
      }
    }
    // The seed's 14.3% and 33%, as the chances that the index holds the job.
    QCOMPARE(qRound(1000 * (1 - stats.indexes[0].p_no)), 143);
    QCOMPARE(qRound(100 * (1 - stats.indexes[1].p_no)), 33);
  }

  // Reading every job the example assumes (present, not in the memtable), the resident filters
  // say "no" as often as the seed says, less only their false positives (about 2%); the oldest
  // index's filter, which could never say it, is not resident at all.
  void filtersAnswerNoAsOftenAsTheSeedSays() {
    QTemporaryDir dir;
    auto store = OpenSeedExample(dir.path().toStdString());
    Stats stats = store->GetStats();
    const uint64_t newest = stats.indexes[0].id, middle = stats.indexes[1].id;
    // The pager ranks new filters on its own thread; wait (bounded) until it has taken them in.
    for (int i = 0; i < 1000 && !(IndexResident(stats, newest) && IndexResident(stats, middle));
         ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      stats = store->GetStats();
    }
    QVERIFY(IndexResident(stats, newest));
    QVERIFY(IndexResident(stats, middle));

    // In a shuffled order: read in id order, each filter would first be asked only for keys it
    // does not hold, then only for its own, and its measured rate (over its latest lookups) would
    // follow that change rather than give the whole run's share.
    std::vector<uint64_t> ids(7 * kBatch);
    std::iota(ids.begin(), ids.end(), uint64_t{0});
    std::shuffle(ids.begin(), ids.end(), std::mt19937_64(1));
    std::string doc;
    for (uint64_t id : ids) {
      QVERIFY(store->Get(id, &doc).ok());
      QCOMPARE(doc, DocFor(id));
    }
    stats = store->GetStats();
    for (size_t i = 0; i < 2; ++i) {
      uint32_t pages = 0;
      for (const BloomPageStats& page : stats.bloom_pages) {
        if (page.index != stats.indexes[i].id) continue;
        ++pages;
        // Enough lookups per page that p_no is now the page's measured "no" rate.
        qInfo("index %zu page %u: measured chance of no %.4f (seed %.4f)", i, page.page, page.p_no,
              kSeedNo[i]);
        QVERIFY2(page.p_no <= kSeedNo[i] + 0.02 && page.p_no > kSeedNo[i] - 0.04,
                 qPrintable(QString::number(page.p_no)));
      }
      QVERIFY(pages > 0);
    }
    // "Not useful": the pager never keeps a page that cannot say no, whatever the budget.
    for (const BloomPageStats& page : stats.bloom_pages) {
      if (page.index != stats.indexes[2].id) continue;
      QVERIFY(!page.resident);
      QCOMPARE(page.usefulness, 0.0);
    }
  }
};

RAILYARD_QTEST_GUILESS_MAIN(SeedBloomTest)
#include "tst_seed_bloom.moc"
