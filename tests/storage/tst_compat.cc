// SPDX-License-Identifier: Apache-2.0
// docs/formats.md, "Compatibility": a store written by an earlier release (its segment log, on-disk
// indexes and Bloom files, manifest and a WAL still to replay; tests/data/compat/) opens with this
// one, every document reads back as written (deletions stay deleted, the WAL's documents are
// there), and it takes writes and opens again.
#include <QDir>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <iterator>

// The footer checksum computed here on its own, header-only.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "tests/storage/compat_store.h"
#include "tests/storage/storage_test_support.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using namespace railyard::storage;
using namespace railyard::storage::testing;

namespace {

// Every release whose store is kept, oldest first.
const char* const kKeptReleases[] = {"0.1.0"};

// Reads every id; empty when each is as compat_store.h says.
std::string CheckCompatDocs(DocStore& store) {
  for (uint64_t id = 1; id <= kCompatLast; ++id) {
    std::string doc;
    const Status s = store.Get(id, &doc);
    if (CompatDeleted(id)) {
      if (!s.IsNotFound())
        return "id " + std::to_string(id) + " should be deleted: " + s.ToString();
    } else if (!s.ok() || doc != CompatDoc(id)) {
      return "id " + std::to_string(id) + ": " + s.ToString() + " '" + doc + "'";
    }
  }
  return {};
}

}  // namespace

class CompatTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void storesOfEarlierReleasesOpen() {
    for (const char* release : kKeptReleases) {
      const std::filesystem::path kept =
          railyard::testing::SourcePath(std::string("tests/data/compat/docstore-") + release);
      QVERIFY2(std::filesystem::is_directory(kept), kept.c_str());
      QTemporaryDir dir;
      const std::filesystem::path copy = std::filesystem::path(dir.path().toStdString()) / "store";
      std::filesystem::copy(kept, copy);  // Opening replays and writes: never the checked-in one.
      Options options = SmallOptions(kCompatMemtableEntries);
      {
        std::unique_ptr<DocStore> store = OpenOrDie(options, copy.string());
        const std::string problem = CheckCompatDocs(*store);
        QVERIFY2(problem.empty(), (std::string(release) + ": " + problem).c_str());
        QVERIFY(store->Put(kCompatLast + 1, "written by this release").ok());
        QVERIFY(store->Flush().ok());
        QVERIFY(store->Close().ok());
      }
      std::unique_ptr<DocStore> again = OpenOrDie(options, copy.string());
      QCOMPARE(CheckCompatDocs(*again), std::string());
      std::string doc;
      QVERIFY(again->Get(kCompatLast + 1, &doc).ok());
      QCOMPARE(doc, std::string("written by this release"));
    }
  }

  // An index file of a format this release does not know (its footer says version 2, checksum
  // and all) is refused by name and version, never read as something else.
  void aNewerIndexFormatIsRefusedByName() {
    QTemporaryDir dir;
    const std::filesystem::path copy = std::filesystem::path(dir.path().toStdString()) / "store";
    std::filesystem::copy(railyard::testing::SourcePath("tests/data/compat/docstore-0.1.0"), copy);
    const std::filesystem::path index = copy / "index-000005.idx";
    std::string bytes;
    {
      std::ifstream in(index, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    QVERIFY(bytes.size() > 48);
    char* footer = bytes.data() + bytes.size() - 48;  // docs/formats.md: the index footer.
    footer[8] = 2;                                    // The version, little-endian.
    const uint64_t checksum = XXH3_64bits(footer, 40);
    for (int i = 0; i < 8; ++i) footer[40 + i] = static_cast<char>(checksum >> (8 * i));
    {
      std::ofstream out(index, std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    std::unique_ptr<DocStore> store;
    const Status s = DocStore::Open(SmallOptions(kCompatMemtableEntries), copy.string(), &store);
    QVERIFY(!s.ok());
    QVERIFY2(s.ToString().find("index-000005.idx: index format version 2, which this release "
                               "cannot read (it reads version 1)") != std::string::npos,
             s.ToString().c_str());
  }
};

RAILYARD_QTEST_GUILESS_MAIN(CompatTest)
#include "tst_compat.moc"
