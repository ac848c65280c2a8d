// SPDX-License-Identifier: Apache-2.0
// DocStore::Locate, what "find a document" across a cluster rests on: which index answered (the
// in-memory one, or an on-disk one and its Bloom page), the queue position of the entry, its size
// and checksum, deletions, absent ids; equal on a replica that holds the same entry and older on
// one that has not caught up; and it neither reads through the cache nor moves the read figures.
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

// The checksum computed here on its own, header-only.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "tests/storage/storage_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::storage;
using namespace railyard::storage::testing;

namespace {

DocLocation LocateOrFail(DocStore& store, uint64_t id) {
  DocLocation location;
  const Status s = store.Locate(id, &location);
  if (!s.ok()) throw std::runtime_error("Locate " + std::to_string(id) + ": " + s.ToString());
  return location;
}

uint64_t ChecksumOf(const std::string& doc) { return XXH3_64bits(doc.data(), doc.size()); }

// Writes `doc` as `id` and returns the position Write gave for it.
uint64_t PutAt(DocStore& store, uint64_t id, const std::string& doc) {
  WriteBatch batch;
  batch.Put(id, doc);
  uint64_t position = 0;
  const Status s = store.Write(batch, &position);
  if (!s.ok()) throw std::runtime_error("Write: " + s.ToString());
  return position;
}

}  // namespace

class LocateTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void memtableIndexesAndDeletions() {
    QTemporaryDir dir;
    auto store = OpenOrDie(SmallOptions(), dir.path().toStdString());

    const DocLocation absent = LocateOrFail(*store, 42);
    QCOMPARE(absent.source, DocLocation::Source::kNone);
    QCOMPARE(absent.position, uint64_t{0});

    const std::string first = DocFor(42, 0);
    const uint64_t written = PutAt(*store, 42, first);
    DocLocation in_memory = LocateOrFail(*store, 42);
    QCOMPARE(in_memory.source, DocLocation::Source::kMemtable);
    QCOMPARE(in_memory.position, written);
    QCOMPARE(in_memory.size, uint64_t{first.size()});
    QCOMPARE(in_memory.checksum, ChecksumOf(first));
    QVERIFY(!in_memory.deleted);

    QVERIFY(store->Flush().ok());
    const Stats after_first = store->GetStats();
    QCOMPARE(after_first.indexes.size(), size_t{1});
    const DocLocation on_disk = LocateOrFail(*store, 42);
    QCOMPARE(on_disk.source, DocLocation::Source::kIndex);
    QCOMPARE(on_disk.index_id, after_first.indexes[0].id);
    QVERIFY(on_disk.bloom_page < after_first.indexes[0].bloom_pages);
    QCOMPARE(on_disk.indexes_skipped, 0u);
    QCOMPARE(on_disk.position, written);  // A flush moves the entry, not the document.
    QCOMPARE(on_disk.checksum, ChecksumOf(first));

    // Another flush (which may merge by the seed's rule): each id is answered by an index the
    // store lists, 7 by the newest.
    PutAt(*store, 7, DocFor(7, 0));
    QVERIFY(store->Flush().ok());
    const Stats two = store->GetStats();
    QVERIFY(!two.indexes.empty());
    const DocLocation older = LocateOrFail(*store, 42);
    QCOMPARE(older.source, DocLocation::Source::kIndex);
    QVERIFY(std::any_of(two.indexes.begin(), two.indexes.end(),
                        [&](const IndexStats& index) { return index.id == older.index_id; }));
    QVERIFY(older.indexes_skipped < two.indexes.size());
    QCOMPARE(older.position, written);
    QCOMPARE(LocateOrFail(*store, 7).index_id, two.indexes[0].id);  // Newest first.

    // A second version, then a deletion: each newest entry answers, with its own position.
    const std::string second = DocFor(42, 1);
    const uint64_t rewritten = PutAt(*store, 42, second);
    const DocLocation newer = LocateOrFail(*store, 42);
    QCOMPARE(newer.source, DocLocation::Source::kMemtable);
    QVERIFY(newer.position > written);
    QCOMPARE(newer.position, rewritten);
    QCOMPARE(newer.checksum, ChecksumOf(second));
    QVERIFY(store->Delete(42).ok());
    const DocLocation gone = LocateOrFail(*store, 42);
    QVERIFY(gone.deleted);
    QVERIFY(gone.position >= rewritten);  // Unsealed, the deletion may share its block.
    QCOMPARE(gone.size, uint64_t{0});
    std::string doc;
    QVERIFY(store->Get(42, &doc).IsNotFound());
  }

  void movesNoReadFigures() {
    QTemporaryDir dir;
    auto store = OpenOrDie(SmallOptions(), dir.path().toStdString());
    for (uint64_t id = 1; id <= 200; ++id) PutAt(*store, id, DocFor(id));
    QVERIFY(store->Flush().ok());
    for (uint64_t id = 201; id <= 220; ++id) PutAt(*store, id, DocFor(id));
    QVERIFY(store->Flush().ok());
    const Stats before = store->GetStats();
    for (uint64_t id = 1; id <= 400; ++id) (void)LocateOrFail(*store, id);
    const Stats after = store->GetStats();
    QCOMPARE(after.reads, before.reads);
    QCOMPARE(after.bloom_negatives, before.bloom_negatives);
    QCOMPARE(after.indexes.size(), before.indexes.size());
    for (size_t i = 0; i < after.indexes.size(); ++i) {
      QCOMPARE(after.indexes[i].index_searches, before.indexes[i].index_searches);
    }
  }

  // A replica that applied the same queue holds the same entry at the same position; one that has
  // not caught up holds an older one, or none.
  void replicasAgreeOrAreOlder() {
    QTemporaryDir updater_dir;
    QTemporaryDir replica_dir;
    const Options options = SmallOptions();
    auto updater = OpenOrDie(options, updater_dir.path().toStdString());
    auto replica = OpenOrDie(ReplicaOptions(options), replica_dir.path().toStdString());
    const uint64_t first = PutAt(*updater, 5, DocFor(5, 0));
    QVERIFY(updater->Flush().ok());  // Seals the open block, so that it can be followed.
    QVERIFY(FollowQueue(*updater, *replica) >= 1);
    const DocLocation here = LocateOrFail(*updater, 5);
    const DocLocation there = LocateOrFail(*replica, 5);
    QCOMPARE(there.position, first);
    QCOMPARE(there.position, here.position);
    QCOMPARE(there.checksum, here.checksum);
    QCOMPARE(there.size, here.size);

    const uint64_t second = PutAt(*updater, 5, DocFor(5, 1));
    PutAt(*updater, 6, DocFor(6, 0));
    QVERIFY(updater->Flush().ok());
    QCOMPARE(LocateOrFail(*updater, 5).position, second);
    QCOMPARE(LocateOrFail(*replica, 5).position, first);  // Not followed yet: the older copy.
    QCOMPARE(LocateOrFail(*replica, 6).source, DocLocation::Source::kNone);
    QVERIFY(replica->AppliedPosition() < second);
    QVERIFY(FollowQueue(*updater, *replica) >= 1);
    QCOMPARE(LocateOrFail(*replica, 5).position, second);
    QCOMPARE(LocateOrFail(*replica, 5).checksum, ChecksumOf(DocFor(5, 1)));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(LocateTest)
#include "tst_locate.moc"
