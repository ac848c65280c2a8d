// SPDX-License-Identifier: Apache-2.0
// DocStore::Snapshot: a folder that opens as a store holding exactly what the store held at the
// snapshot's queue position (documents overwritten and deleted included, later writes not),
// made of hard links to the index files and closed segments (the same inodes) and a copy of the
// segment being written; it survives the store's own compaction; a replica's snapshot, and an
// updater's, start a replica that follows on from the snapshot's position without fetching the
// queue before it; a filesystem that refuses links gets copies; a taken name and a stale partial
// snapshot are handled.
#include <sys/stat.h>

#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "storage/fault_env.h"
#include "tests/storage/storage_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::storage;
using namespace railyard::storage::testing;
namespace fs = std::filesystem;

namespace {

// Ids 1..n, every third overwritten (generation 1), every seventh deleted; the open block holds
// the last write.
void WriteHistory(DocStore& store, uint64_t n) {
  for (uint64_t id = 1; id <= n; ++id) {
    if (!store.Put(id, DocFor(id)).ok()) throw std::runtime_error("Put");
  }
  for (uint64_t id = 3; id <= n; id += 3) {
    if (!store.Put(id, DocFor(id, 1)).ok()) throw std::runtime_error("Put");
  }
  for (uint64_t id = 7; id <= n; id += 7) {
    if (!store.Delete(id).ok()) throw std::runtime_error("Delete");
  }
}

// Whether `store` holds ids 1..n as WriteHistory left them; the first difference otherwise.
QString CheckHistory(DocStore& store, uint64_t n) {
  for (uint64_t id = 1; id <= n; ++id) {
    std::string doc;
    const Status s = store.Get(id, &doc);
    if (id % 7 == 0) {
      if (!s.IsNotFound())
        return QString("id %1 was deleted, yet: %2").arg(id).arg(s.ToString().c_str());
      continue;
    }
    if (!s.ok()) return QString("id %1: %2").arg(id).arg(s.ToString().c_str());
    if (doc != DocFor(id, id % 3 == 0 ? 1 : 0))
      return QString("id %1 holds another version").arg(id);
  }
  return {};
}

ino_t Inode(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

std::vector<std::string> Names(const std::string& directory) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

class SnapshotTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void opensAsTheStoreWasAtItsPosition() {
    QTemporaryDir dir;
    const std::string live = dir.filePath("live").toStdString();
    const std::string snap = dir.filePath("snap").toStdString();
    auto store = OpenOrDie(SmallOptions(500), live);
    WriteHistory(*store, 2000);  // Several flushes, a non-empty in-memory index, an open block.
    QVERIFY(store->GetStats().memtable_entries > 0);

    DocStore::SnapshotInfo info;
    const Status s = store->Snapshot(snap, &info);
    QVERIFY2(s.ok(), s.ToString().c_str());
    QCOMPARE(info.position, store->AppliedPosition());
    QVERIFY(info.files_linked > 0);
    QVERIFY(info.files_copied >= 1);  // The segment being written.
    // No log, no lock, nothing partial: indexes, segments and a manifest.
    for (const std::string& name : Names(snap)) {
      QVERIFY2(name == "MANIFEST" || name.starts_with("index-") || name.starts_with("segment-"),
               name.c_str());
    }
    QVERIFY(!fs::exists(snap + ".partial"));
    // Linked: the same file, not a copy.
    const std::vector<std::string> names = Names(snap);
    const auto first_index = std::find_if(
        names.begin(), names.end(), [](const std::string& n) { return n.starts_with("index-"); });
    QVERIFY(first_index != names.end());
    const std::string index = *first_index;
    QCOMPARE(Inode(snap + "/" + index), Inode(live + "/" + index));

    // The store goes on; what it does next is not in the snapshot.
    for (uint64_t id = 5001; id <= 5100; ++id) QVERIFY(store->Put(id, DocFor(id)).ok());
    QVERIFY(store->Put(1, DocFor(1, 9)).ok());
    QVERIFY(store->CompactAll().ok());  // Deletes the index files the snapshot links.

    auto copy = OpenOrDie(SmallOptions(500), snap);
    QCOMPARE(copy->AppliedPosition(), info.position);
    const QString history = CheckHistory(*copy, 2000);
    QVERIFY2(history.isEmpty(), qPrintable(history));
    std::string doc;
    QVERIFY(copy->Get(5001, &doc).IsNotFound());
    // The snapshot's store is a store of its own: it takes writes, and the original is untouched.
    QVERIFY(copy->Put(9999, "only in the copy").ok());
    QVERIFY(store->Get(9999, &doc).IsNotFound());
    QVERIFY(store->Get(1, &doc).ok() && doc == DocFor(1, 9));
  }

  // A replica's snapshot starts a replica that follows on from the snapshot's position: what it
  // fetches starts there, and it ends equal to its updater. An updater's snapshot does the same.
  void aReplicaStartsFromASnapshotAndFollowsOn() {
    QTemporaryDir dir;
    auto updater = OpenOrDie(SmallOptions(500), dir.filePath("updater").toStdString());
    auto replica =
        OpenOrDie(ReplicaOptions(SmallOptions(500)), dir.filePath("replica").toStdString());
    WriteHistory(*updater, 1500);
    QVERIFY(updater->Flush().ok());
    FollowQueue(*updater, *replica);
    QCOMPARE(replica->AppliedPosition(), updater->AppliedPosition());

    for (DocStore* source : {replica.get(), updater.get()}) {
      const std::string snap =
          dir.filePath(source == replica.get() ? "from-replica" : "from-updater").toStdString();
      DocStore::SnapshotInfo info;
      const Status s = source->Snapshot(snap, &info);
      QVERIFY2(s.ok(), s.ToString().c_str());
      auto fresh = OpenOrDie(ReplicaOptions(SmallOptions(500)), snap);
      QCOMPARE(fresh->AppliedPosition(), info.position);
      const LogPosition resume = fresh->QueueEnd();
      QCOMPARE(updater->QueuePositionOf(resume), info.position);
      // Nothing to fetch up to the snapshot's position: the updater's queue has nothing past it.
      QueueChunk chunk;
      QVERIFY(updater->ReadQueue(resume, 1 << 20, &chunk).ok());
      if (source == replica.get()) QVERIFY(chunk.blocks.empty());
      // The updater writes on; the new replica follows and ends equal to it.
      for (uint64_t id = 1; id <= 300; ++id) QVERIFY(updater->Put(id, DocFor(id, 5)).ok());
      QVERIFY(updater->Flush().ok());  // Seals the open block: replicas get whole blocks only.
      FollowQueue(*updater, *fresh);
      QCOMPARE(fresh->AppliedPosition(), updater->AppliedPosition());
      for (uint64_t id = 1; id <= 1500; ++id) {
        std::string want, got;
        const Status a = updater->Get(id, &want);
        const Status b = fresh->Get(id, &got);
        QCOMPARE(a.code(), b.code());
        QVERIFY2(want == got, qPrintable(QString("from the %1: id %2: updater %3, new replica %4")
                                             .arg(source == replica.get() ? "replica" : "updater")
                                             .arg(id)
                                             .arg(QString::fromStdString(want.substr(0, 40)),
                                                  QString::fromStdString(got.substr(0, 40)))));
      }
    }
  }

  void aFilesystemWithoutLinksGetsCopies() {
    QTemporaryDir dir;
    FaultInjectingEnv env;
    Options options = SmallOptions(500);
    options.env = &env;
    auto store = OpenOrDie(options, dir.filePath("live").toStdString());
    WriteHistory(*store, 1200);
    FaultInjectingEnv::Fault fault;
    fault.op = FaultInjectingEnv::Op::kLink;
    fault.times = 0;  // Every link.
    fault.error = EXDEV;
    env.Inject(fault);
    DocStore::SnapshotInfo info;
    const std::string snap = dir.filePath("snap").toStdString();
    const Status s = store->Snapshot(snap, &info);
    QVERIFY2(s.ok(), s.ToString().c_str());
    QCOMPARE(info.files_linked, uint64_t{0});
    QVERIFY(info.files_copied > 2);
    env.Heal();
    auto copy = OpenOrDie(SmallOptions(500), snap);
    const QString history = CheckHistory(*copy, 1200);
    QVERIFY2(history.isEmpty(), qPrintable(history));

    // Another error than "no links here" is one: said, and nothing is left behind.
    fault.error = EIO;
    env.Inject(fault);
    const Status failed = store->Snapshot(dir.filePath("snap2").toStdString(), &info);
    QVERIFY(!failed.ok());
    QVERIFY2(failed.ToString().find("link") != std::string::npos, failed.ToString().c_str());
    QVERIFY(!fs::exists(dir.filePath("snap2").toStdString()));
    QVERIFY(!fs::exists(dir.filePath("snap2.partial").toStdString()));
  }

  void aTakenNameIsRefusedAndAStalePartialReplaced() {
    QTemporaryDir dir;
    auto store = OpenOrDie(SmallOptions(500), dir.filePath("live").toStdString());
    WriteHistory(*store, 100);
    const std::string snap = dir.filePath("snap").toStdString();
    fs::create_directories(snap + ".partial");  // A crash half-way through an earlier one.
    { std::ofstream(snap + ".partial/segment-000099.seg") << "left over"; }
    DocStore::SnapshotInfo info;
    QVERIFY(store->Snapshot(snap, &info).ok());
    QVERIFY(!fs::exists(snap + "/segment-000099.seg"));
    const Status again = store->Snapshot(snap, &info);
    QCOMPARE(again.code(), Status::Code::kInvalidArgument);
    QVERIFY2(again.ToString().find("exists already") != std::string::npos,
             again.ToString().c_str());
    QCOMPARE(store->Snapshot(dir.filePath("no/such/parent/snap").toStdString(), &info).code(),
             Status::Code::kInvalidArgument);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(SnapshotTest)
#include "tst_snapshot.moc"
