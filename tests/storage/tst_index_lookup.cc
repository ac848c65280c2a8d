// SPDX-License-Identifier: Apache-2.0
// Finding an id in an on-disk index: the fence table (storage/fence_lookup.h) and the search
// within a page give exactly what a plain binary search gives, for ids spread evenly, dense,
// bunched up or at the ends of the 64-bit range.
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "storage/coding.h"
#include "storage/env.h"
#include "storage/fence_lookup.h"
#include "storage/index_file.h"
#include "tests/support/qtest_main.h"

using namespace railyard::storage;

namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// Sorted, distinct ids of several shapes.
std::vector<uint64_t> Uniform(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::set<uint64_t> ids;
  while (ids.size() < n) ids.insert(rng());
  return {ids.begin(), ids.end()};
}
std::vector<uint64_t> Dense(size_t n, uint64_t first) {
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = first + i;
  return ids;
}
// Tight clusters far apart, plus both ends of the range: interpolation guesses badly here.
std::vector<uint64_t> Bunched(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::set<uint64_t> ids{0, kMax};
  const uint64_t centres[] = {1000, uint64_t{1} << 40, (uint64_t{1} << 63) + 12345, kMax - 5000};
  // Each cluster 2n ids wide (four of them: room for n distinct ids).
  while (ids.size() < n) ids.insert(centres[rng() % 4] + rng() % (2 * n));
  return {ids.begin(), ids.end()};
}

// Ids to look up: every id, its neighbours, the ends of the range and random ones.
std::vector<uint64_t> Probes(const std::vector<uint64_t>& ids, uint64_t seed) {
  std::vector<uint64_t> probes{0, 1, kMax, kMax - 1};
  for (uint64_t id : ids) {
    probes.push_back(id);
    probes.push_back(id - 1);  // Wraps at 0 to kMax: still a probe.
    probes.push_back(id + 1);
  }
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 2000; ++i) probes.push_back(rng());
  return probes;
}

std::optional<size_t> ExpectedPage(const std::vector<uint64_t>& fences, uint64_t id) {
  const auto after = std::upper_bound(fences.begin(), fences.end(), id);
  if (after == fences.begin()) return std::nullopt;
  return static_cast<size_t>(after - fences.begin()) - 1;
}

}  // namespace

class IndexLookupTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void fenceLookupAgreesWithABinarySearch_data() {
    QTest::addColumn<std::vector<uint64_t>>("fences");
    QTest::newRow("one fence") << std::vector<uint64_t>{42};
    QTest::newRow("both ends") << std::vector<uint64_t>{0, kMax};
    QTest::newRow("uniform") << Uniform(5000, 1);
    QTest::newRow("dense") << Dense(4097, 7);
    QTest::newRow("bunched") << Bunched(3000, 2);
    QTest::newRow("powers of two") << [] {
      std::vector<uint64_t> fences;
      for (int bit = 0; bit < 64; ++bit) fences.push_back(uint64_t{1} << bit);
      return fences;
    }();
  }
  void fenceLookupAgreesWithABinarySearch() {
    QFETCH(std::vector<uint64_t>, fences);
    const FenceLookup lookup(fences);
    QCOMPARE(lookup.size(), fences.size());
    for (uint64_t id : Probes(fences, 3)) {
      QVERIFY2(lookup.PageFor(id) == ExpectedPage(fences, id),
               qPrintable(QString("id %1").arg(id)));
    }
  }

  // Whole index files: every id is found with its value, and no id between them is.
  void findGivesEveryIdAndNothingElse_data() {
    QTest::addColumn<std::vector<uint64_t>>("ids");
    QTest::newRow("uniform") << Uniform(20000, 4);
    QTest::newRow("dense") << Dense(20000, 1);
    QTest::newRow("bunched") << Bunched(20000, 5);
    QTest::newRow("one entry") << std::vector<uint64_t>{99};
    QTest::newRow("one page, both ends") << std::vector<uint64_t>{0, 5, kMax - 1, kMax};
  }
  void findGivesEveryIdAndNothingElse() {
    QFETCH(std::vector<uint64_t>, ids);
    QTemporaryDir dir;
    const std::string path = dir.filePath("index.idx").toStdString();
    IndexFileWriter writer;
    QVERIFY(writer.Open(Env::Default(), path).ok());
    for (uint64_t id : ids) {
      IndexEntry entry;
      entry.id = id;
      entry.value.address.segment = static_cast<uint32_t>(id % 1000);
      entry.value.address.block_offset = static_cast<uint32_t>(id >> 32);
      QVERIFY(writer.Add(entry).ok());
    }
    QVERIFY(writer.Finish(std::chrono::system_clock::now()).ok());
    std::shared_ptr<IndexFile> index;
    QVERIFY(IndexFile::Open(Env::Default(), path, 1, &index).ok());
    const std::set<uint64_t> present(ids.begin(), ids.end());
    for (uint64_t id : Probes(ids, 6)) {
      bool found = false;
      IndexValue value;
      QVERIFY(index->Find(id, &found, &value).ok());
      QVERIFY2(found == present.contains(id), qPrintable(QString("id %1").arg(id)));
      if (found) {
        QCOMPARE(value.address.segment, static_cast<uint32_t>(id % 1000));
        QCOMPARE(value.address.block_offset, static_cast<uint32_t>(id >> 32));
      }
    }
  }

  // Every page but the last is full, so a lookup takes a page's entry count from the layout; a
  // page whose own count says otherwise is damaged, even with a checksum that matches.
  void aPageWhoseCountDisagreesWithTheLayoutIsDamaged() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("index.idx").toStdString();
    IndexFileWriter writer;
    QVERIFY(writer.Open(Env::Default(), path).ok());
    for (uint64_t id = 1; id <= 300; ++id) QVERIFY(writer.Add({id, {}}).ok());  // Two pages.
    QVERIFY(writer.Finish(std::chrono::system_clock::now()).ok());
    {
      QFile file(QString::fromStdString(path));
      QVERIFY(file.open(QIODevice::ReadWrite));
      QByteArray page = file.read(kIndexPageBytes);
      const size_t trailer = kEntriesPerPage * kIndexEntryBytes;
      page[static_cast<qsizetype>(trailer)] = static_cast<char>(kEntriesPerPage - 1);
      EncodeFixed64(page.data() + kIndexPageBytes - 8,
                    Checksum64(page.constData(), kIndexPageBytes - 8));
      QVERIFY(file.seek(0));
      QCOMPARE(file.write(page), qint64{kIndexPageBytes});
    }
    std::shared_ptr<IndexFile> index;
    QVERIFY(IndexFile::Open(Env::Default(), path, 1, &index).ok());
    bool found = false;
    IndexValue value;
    const Status s = index->Find(10, &found, &value);
    QVERIFY2(s.IsCorruption(), s.ToString().c_str());
    QVERIFY(s.message().find("entry count damaged") != std::string::npos);
    QVERIFY(index->Find(250, &found, &value).ok() && found);  // The other page is intact.
  }
};

RAILYARD_QTEST_GUILESS_MAIN(IndexLookupTest)
#include "tst_index_lookup.moc"
