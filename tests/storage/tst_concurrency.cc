// SPDX-License-Identifier: Apache-2.0
// Many readers and writers at once, while flushes and compactions run underneath: every read
// returns an intact document of the right id, never older than one the same reader saw before.
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <thread>

#include "tests/storage/storage_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::storage;
using namespace railyard::storage::testing;

class ConcurrencyTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void readersAndWritersWithBackgroundCompaction() {
    QTemporaryDir dir;
    auto store = OpenOrDie(SmallOptions(300), dir.path().toStdString());
    constexpr int kWriters = 3, kReaders = 3;
    constexpr uint64_t kIdsPerWriter = 400;
    constexpr uint32_t kGenerations = 8;
    std::atomic<bool> failed{false};
    std::atomic<uint64_t> reads{0};
    std::atomic<int> writers_done{0};
    std::vector<std::thread> threads;
    for (int w = 0; w < kWriters; ++w) {
      threads.emplace_back([&, w] {
        for (uint32_t g = 0; g < kGenerations && !failed; ++g) {
          for (uint64_t i = 0; i < kIdsPerWriter; ++i) {
            const uint64_t id = w * kIdsPerWriter + i;
            if (!store->Put(id, DocFor(id, g)).ok()) failed = true;
          }
        }
        ++writers_done;
      });
    }
    for (int r = 0; r < kReaders; ++r) {
      threads.emplace_back([&, r] {
        std::vector<int> seen(kWriters * kIdsPerWriter, -1);
        std::string doc;
        uint64_t id = r;
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        // Until the writers are done, and at least 100 reads each: on a loaded machine a reader
        // may get its first turn only after the writers have finished.
        uint64_t mine = 0;
        while ((writers_done < kWriters || mine < 100) && !failed &&
               std::chrono::steady_clock::now() < give_up) {
          id = (id * 6364136223846793005ull + 1442695040888963407ull) % seen.size();
          const Status s = store->Get(id, &doc);
          ++reads;
          ++mine;
          if (s.IsNotFound()) {
            if (seen[id] >= 0) failed = true;  // Was there, vanished.
            continue;
          }
          int generation = -1;
          for (uint32_t g = 0; g < kGenerations; ++g) {
            if (doc == DocFor(id, g)) generation = static_cast<int>(g);
          }
          if (!s.ok() || generation < seen[id]) {
            qWarning("id %llu: %s", static_cast<unsigned long long>(id), s.ToString().c_str());
            failed = true;
          }
          seen[id] = generation;
        }
      });
    }
    for (auto& t : threads) t.join();
    QVERIFY(!failed);
    QVERIFY(reads > 0);
    QVERIFY(store->Flush().ok());
    std::string doc;
    for (uint64_t id = 0; id < kWriters * kIdsPerWriter; ++id) {
      QVERIFY(store->Get(id, &doc).ok());
      QCOMPARE(doc, DocFor(id, kGenerations - 1));
    }
    const Stats stats = store->GetStats();
    qInfo("%llu concurrent reads; %zu compactions; %llu stalls",
          static_cast<unsigned long long>(reads.load()), stats.compactions.size(),
          static_cast<unsigned long long>(stats.write_stalls));
    QVERIFY(stats.compactions.size() >= 20);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ConcurrencyTest)
#include "tst_concurrency.moc"
