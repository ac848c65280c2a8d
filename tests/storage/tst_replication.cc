// SPDX-License-Identifier: Apache-2.0
// The docstore's side of replication: a replica's store applying an updater's queue ends up with
// the same documents (deletions included) and byte-identical segment files, across segments,
// flushes and reopening; damaged blocks are never applied; batches share a block; lone writes are
// sealed; write positions; and the document cache never hides a change.
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "storage/segment_block.h"
#include "tests/storage/storage_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::storage;
using namespace railyard::storage::testing;
using Clock = std::chrono::steady_clock;

namespace {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Every segment file of `replica` equals the updater's (the newest up to the replica's length).
void CheckSegmentsIdentical(const QString& updater_dir, const QString& replica_dir) {
  int compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(replica_dir.toStdString())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("segment-", 0) != 0) continue;
    const std::string mine = ReadFile(entry.path());
    const std::string theirs = ReadFile(std::filesystem::path(updater_dir.toStdString()) / name);
    QVERIFY2(theirs.size() >= mine.size(), name.c_str());
    QVERIFY2(theirs.compare(0, mine.size(), mine) == 0, name.c_str());
    ++compared;
  }
  QVERIFY(compared > 0);
}

void CheckSameDocuments(DocStore& updater, DocStore& replica, uint64_t max_id) {
  std::string a, b;
  for (uint64_t id = 0; id <= max_id; ++id) {
    const Status sa = updater.Get(id, &a);
    const Status sb = replica.Get(id, &b);
    QVERIFY2(sa.ok() == sb.ok() && sa.IsNotFound() == sb.IsNotFound(),
             qPrintable(QString("id %1: updater %2, replica %3")
                            .arg(id)
                            .arg(sa.ToString().c_str())
                            .arg(sb.ToString().c_str())));
    if (sa.ok()) QCOMPARE(b, a);
  }
}

// The entries of every block in `blocks`, block by block.
std::vector<std::vector<uint64_t>> IdsPerBlock(const std::string& blocks) {
  std::vector<std::vector<uint64_t>> out;
  size_t offset = 0;
  std::string scratch;
  while (offset < blocks.size()) {
    BlockHeader header;
    std::string_view raw;
    if (!DecodeBlock(blocks.data() + offset, blocks.size() - offset, &scratch, &raw, &header).ok())
      throw std::runtime_error("undecodable block");
    std::vector<BlockEntry> entries;
    if (!EntriesOfRawBlock(raw, header.tombstones, &entries).ok())
      throw std::runtime_error("bad block layout");
    out.emplace_back();
    for (const BlockEntry& e : entries) out.back().push_back(e.id);
    offset += header.total_bytes();
  }
  return out;
}

}  // namespace

class ReplicationTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void replicaHoldsTheSameDocumentsDeletionsIncluded() {
    QTemporaryDir up_dir, rep_dir;
    Options options = SmallOptions(400);
    options.segment_bytes = 32 * 1024;  // Several segments.
    auto updater = OpenOrDie(options, up_dir.path().toStdString());
    auto replica = OpenOrDie(ReplicaOptions(options), rep_dir.path().toStdString());
    std::mt19937_64 rng(7);
    for (int i = 0; i < 3000; ++i) {
      const uint64_t id = rng() % 600;
      const Status s = rng() % 4 == 0 ? updater->Delete(id) : updater->Put(id, DocFor(id, i));
      QVERIFY(s.ok());
      if (i % 700 == 0) QVERIFY(updater->Flush().ok());  // Seals the open block.
    }
    QVERIFY(updater->Flush().ok());
    QVERIFY(FollowQueue(*updater, *replica) > 1);
    CheckSameDocuments(*updater, *replica, 600);
    QVERIFY(replica->GetStats().deletes > 0);
    QCOMPARE(replica->QueueEnd(), updater->QueueEnd());
    QVERIFY(replica->QueueEnd().segment > 1);
    CheckSegmentsIdentical(up_dir.path(), rep_dir.path());
  }

  void replicaResumesWhereItWasAfterReopen() {
    QTemporaryDir up_dir, rep_dir;
    Options options = SmallOptions(300);
    options.segment_bytes = 16 * 1024;
    auto updater = OpenOrDie(options, up_dir.path().toStdString());
    for (uint64_t id = 0; id < 1500; ++id) QVERIFY(updater->Put(id % 500, DocFor(id, 1)).ok());
    QVERIFY(updater->Flush().ok());
    const Options replica_options = ReplicaOptions(options);
    {
      auto replica = OpenOrDie(replica_options, rep_dir.path().toStdString());
      QueueChunk chunk;
      QVERIFY(updater->ReadQueue(replica->QueueEnd(), 20000, &chunk).ok());
      QVERIFY(replica->ApplyQueue(chunk.start, chunk.blocks).ok());
      // No Flush: the replica's own WAL must carry what it indexed.
    }
    auto replica = OpenOrDie(replica_options, rep_dir.path().toStdString());
    QVERIFY(replica->AppliedPosition() > 0);
    for (uint64_t id = 1500; id < 2500; ++id) QVERIFY(updater->Put(id % 700, DocFor(id, 2)).ok());
    QVERIFY(updater->Flush().ok());
    FollowQueue(*updater, *replica);
    CheckSameDocuments(*updater, *replica, 700);
    CheckSegmentsIdentical(up_dir.path(), rep_dir.path());
  }

  void damagedBlockIsNeverApplied() {
    QTemporaryDir up_dir, rep_dir;
    Options options = SmallOptions(1000);
    options.block_bytes = 512;  // Many small blocks.
    auto updater = OpenOrDie(options, up_dir.path().toStdString());
    auto replica = OpenOrDie(ReplicaOptions(options), rep_dir.path().toStdString());
    for (uint64_t id = 0; id < 200; ++id) QVERIFY(updater->Put(id, DocFor(id)).ok());
    QVERIFY(updater->Flush().ok());
    QueueChunk chunk;
    QVERIFY(updater->ReadQueue(replica->QueueEnd(), 1 << 20, &chunk).ok());
    const std::vector<std::vector<uint64_t>> blocks = IdsPerBlock(chunk.blocks);
    QVERIFY(blocks.size() >= 3);
    BlockHeader first;
    QVERIFY(ParseBlockHeader(chunk.blocks.data(), chunk.blocks.size(), &first).ok());
    std::string damaged = chunk.blocks;
    damaged[first.total_bytes() + 30] ^= 0x01;  // Inside the second block.
    const Status s = replica->ApplyQueue(chunk.start, damaged);
    QVERIFY2(s.IsCorruption(), s.ToString().c_str());
    // The first block is applied, nothing of the second.
    QCOMPARE(replica->QueueEnd().offset, chunk.start.offset + first.total_bytes());
    std::string doc;
    QVERIFY(replica->Get(blocks[0].front(), &doc).ok());
    QVERIFY(replica->Get(blocks[1].front(), &doc).IsNotFound());
    FollowQueue(*updater, *replica);  // Fetching again from the damaged block's start heals it.
    CheckSameDocuments(*updater, *replica, 200);
    CheckSegmentsIdentical(up_dir.path(), rep_dir.path());
  }

  void updaterRefusesToSendItsOwnDamagedBlock() {
    QTemporaryDir up_dir;
    Options options = SmallOptions(1000);
    options.block_bytes = 512;
    {
      auto updater = OpenOrDie(options, up_dir.path().toStdString());
      for (uint64_t id = 0; id < 100; ++id) QVERIFY(updater->Put(id, DocFor(id)).ok());
      QVERIFY(updater->Flush().ok());
    }
    const std::string path = (up_dir.path() + "/segment-000001.seg").toStdString();
    std::string bytes = ReadFile(path);
    QVERIFY(bytes.size() > 2000);
    bytes[bytes.size() / 2] ^= 0x40;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    auto updater = OpenOrDie(options, up_dir.path().toStdString());
    LogPosition at{1, 0};
    Status s;
    for (int guard = 0; guard < 1000; ++guard) {
      QueueChunk chunk;
      s = updater->ReadQueue(at, 4096, &chunk);
      if (!s.ok() || chunk.blocks.empty()) break;
      at = {chunk.start.segment, chunk.start.offset + chunk.blocks.size()};
    }
    QVERIFY2(s.IsCorruption(), s.ToString().c_str());
    QVERIFY2(s.ToString().find("segment-000001.seg") != std::string::npos, s.ToString().c_str());
    QVERIFY(at.offset < bytes.size() / 2);  // Stopped at the damage, did not skip past it.
  }

  void replicaRefusesWritesAndForeignPositions() {
    QTemporaryDir up_dir, rep_dir;
    auto updater = OpenOrDie(SmallOptions(), up_dir.path().toStdString());
    auto replica = OpenOrDie(ReplicaOptions(SmallOptions()), rep_dir.path().toStdString());
    QCOMPARE(replica->Put(1, "x").code(), Status::Code::kInvalidArgument);
    QCOMPARE(replica->Delete(1).code(), Status::Code::kInvalidArgument);
    for (uint64_t id = 0; id < 50; ++id) QVERIFY(updater->Put(id, DocFor(id)).ok());
    QVERIFY(updater->Flush().ok());
    QueueChunk chunk;
    QVERIFY(updater->ReadQueue({1, 0}, 1 << 20, &chunk).ok());
    QCOMPARE(replica->ApplyQueue({1, 24}, chunk.blocks).code(), Status::Code::kInvalidArgument);
    QCOMPARE(updater->ApplyQueue({1, 0}, chunk.blocks).code(), Status::Code::kInvalidArgument);
    // A follower claiming more than the updater has, or a position inside a block, has diverged.
    QueueChunk none;
    QCOMPARE(updater->ReadQueue({1, chunk.blocks.size() + 100}, 4096, &none).code(),
             Status::Code::kInvalidArgument);
    QCOMPARE(updater->ReadQueue({1, 5}, 4096, &none).code(), Status::Code::kInvalidArgument);
    QCOMPARE(updater->ReadQueue({9, 0}, 4096, &none).code(), Status::Code::kInvalidArgument);
  }

  void batchSharesOneBlockAndPositionsAreReached() {
    QTemporaryDir up_dir, rep_dir;
    Options options = SmallOptions(1000);
    options.block_bytes = 1024;
    auto updater = OpenOrDie(options, up_dir.path().toStdString());
    auto replica = OpenOrDie(ReplicaOptions(options), rep_dir.path().toStdString());
    for (uint64_t id = 0; id < 5; ++id) QVERIFY(updater->Put(id, std::string(150, 'a')).ok());
    WriteBatch batch;  // Larger than the room left in the open block: it must not be split.
    for (uint64_t id = 100; id < 110; ++id) batch.Put(id, std::string(60, 'b'));
    batch.Delete(3);
    uint64_t position = 0;
    QVERIFY(updater->Write(batch, &position).ok());
    QVERIFY(position > 0);
    QVERIFY(updater->Flush().ok());
    QueueChunk chunk;
    QVERIFY(updater->ReadQueue({1, 0}, 1 << 20, &chunk).ok());
    const auto blocks = IdsPerBlock(chunk.blocks);
    int holding = 0;
    for (const auto& ids : blocks) {
      const auto n = std::count_if(ids.begin(), ids.end(), [](uint64_t id) { return id >= 100; });
      if (n == 0) continue;
      ++holding;
      QCOMPARE(n, 10);
      QCOMPARE(ids.back(), uint64_t{3});  // The batch's deletion, in the same block.
    }
    QCOMPARE(holding, 1);
    QVERIFY(!replica->WaitForApplied(position, Clock::now() + std::chrono::milliseconds(20)));
    FollowQueue(*updater, *replica);
    QVERIFY(replica->AppliedPosition() >= position);
    QVERIFY(replica->WaitForApplied(position, Clock::now()));
    std::string doc;
    QVERIFY(replica->Get(3, &doc).IsNotFound());
    QVERIFY(replica->Get(109, &doc).ok());
  }

  void loneWriteIsSealedWithinSealAfter() {
    QTemporaryDir dir;
    Options options = SmallOptions();
    options.seal_after = std::chrono::milliseconds(20);
    auto updater = OpenOrDie(options, dir.path().toStdString());
    const LogPosition before = updater->QueueEnd();
    QVERIFY(!updater->WaitForQueuePast(before, Clock::now() + std::chrono::milliseconds(50)));
    QVERIFY(updater->Put(42, "lonely").ok());
    QVERIFY(updater->WaitForQueuePast(before, Clock::now() + std::chrono::seconds(20)));
    QueueChunk chunk;
    QVERIFY(updater->ReadQueue(before, 4096, &chunk).ok());
    QCOMPARE(chunk.entries, uint64_t{1});
    QVERIFY(chunk.last_append_unix_us > 0);
    const QueueLag lag = updater->LagOf(before);
    QCOMPARE(lag.entries, uint64_t{1});
    QCOMPARE(lag.bytes, uint64_t{chunk.blocks.size()});
    QVERIFY(lag.oldest_unsent_append_unix_us > 0);
    QCOMPARE(updater->LagOf(updater->QueueEnd()).bytes, uint64_t{0});
  }

  // A write that begins a block just as the seal thread writes out the previous one must still be
  // sealed: the next writes join its block, so nothing else would ever schedule it (a replica then
  // waits for it forever). Write pairs spaced about one seal_after apart make the two race.
  void writeRacingTheSealerIsSealedToo() {
    QTemporaryDir dir;
    Options options = SmallOptions();
    options.seal_after = std::chrono::milliseconds(1);
    auto updater = OpenOrDie(options, dir.path().toStdString());
    std::mt19937 rng(7);
    WriteBatch batch;
    for (uint64_t pair = 0; pair < 400; ++pair) {
      uint64_t position = 0;
      for (uint64_t id : {2 * pair, 2 * pair + 1}) {
        batch.Clear();
        batch.Put(id, "racing");
        QVERIFY(updater->Write(batch, &position).ok());
        std::this_thread::sleep_for(
            std::chrono::microseconds(std::uniform_int_distribution<int>(700, 1300)(rng)));
      }
      // Sealed within about a millisecond; the bound is generous for a loaded machine.
      const auto until = Clock::now() + std::chrono::seconds(10);
      while (updater->QueuePositionOf(updater->QueueEnd()) < position && Clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      QVERIFY2(
          updater->QueuePositionOf(updater->QueueEnd()) >= position,
          qPrintable(QString("pair %1: the write at %2 was never sealed").arg(pair).arg(position)));
    }
  }

  void cacheNeverHidesAChange() {
    QTemporaryDir dir;
    Options options = SmallOptions(2000);
    options.doc_cache_bytes = 1 << 20;
    auto store = OpenOrDie(options, dir.path().toStdString());
    constexpr uint64_t kKeys = 16;
    // Version v of a key: a put of "v<v>", except every third version is a deletion.
    auto is_delete = [](uint64_t v) { return v % 3 == 2; };
    std::vector<std::atomic<uint64_t>> acked(kKeys);
    for (uint64_t k = 0; k < kKeys; ++k) {
      QVERIFY(store->Put(k, "v0").ok());
      acked[k] = 0;
    }
    std::atomic<bool> stop{false};
    std::atomic<int> violations{0};
    std::atomic<uint64_t> reads{0};
    std::vector<std::thread> readers;
    for (int r = 0; r < 3; ++r) {
      readers.emplace_back([&, r] {
        std::mt19937_64 rng(r);
        std::string doc;
        while (!stop.load()) {
          const uint64_t k = rng() % kKeys;
          const uint64_t before = acked[k].load();
          const Status s = store->Get(k, &doc);
          const uint64_t after = acked[k].load();
          reads.fetch_add(1);
          if (s.ok()) {
            const uint64_t v = std::stoull(doc.substr(1));
            if (v < before || v > after + 1 || is_delete(v)) violations.fetch_add(1);
          } else if (s.IsNotFound()) {
            // The one writer's next change (after + 1) may be in the store before it is acked.
            bool deleted_in_range = false;
            for (uint64_t v = before; v <= after + 1; ++v) deleted_in_range |= is_delete(v);
            if (!deleted_in_range) violations.fetch_add(1);
          } else {
            violations.fetch_add(1);
          }
        }
      });
    }
    // At least 1.5 s, then on (bounded) until the cache has both served reads and been
    // invalidated: a loaded machine may not have given the readers the turns for that in 1.5 s.
    const Clock::time_point end = Clock::now() + std::chrono::milliseconds(1500);
    const Clock::time_point give_up = end + std::chrono::seconds(30);
    const auto done = [&] {
      if (Clock::now() < end) return false;
      if (Clock::now() >= give_up) return true;
      const Stats s = store->GetStats();
      return s.cache.hits > 0 && s.cache.invalidations > 0;
    };
    std::mt19937_64 rng(99);
    uint64_t writes = 0;
    while (writes < 2000000 && (writes % 1024 != 0 || !done())) {
      const uint64_t k = rng() % kKeys;
      const uint64_t v = acked[k].load() + 1;
      const Status s = is_delete(v) ? store->Delete(k) : store->Put(k, "v" + std::to_string(v));
      QVERIFY(s.ok());
      acked[k].store(v);
      ++writes;
      if (writes % 64 == 0) std::this_thread::yield();  // Let readers fill the cache between.
    }
    stop = true;
    for (auto& t : readers) t.join();
    QCOMPARE(violations.load(), 0);
    const Stats stats = store->GetStats();
    QVERIFY2(stats.cache.hits > 0, qPrintable(QString::number(reads.load())));
    QVERIFY(stats.cache.invalidations > 0);
    QVERIFY(stats.cache.bytes <= stats.cache.budget_bytes);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ReplicationTest)
#include "tst_replication.moc"
