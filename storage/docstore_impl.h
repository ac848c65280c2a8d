// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: the DocStore implementation.

#include <atomic>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "storage/bloom_pager.h"
#include "storage/doc_cache.h"
#include "storage/docstore.h"
#include "storage/env.h"
#include "storage/index_file.h"
#include "storage/index_merge.h"
#include "storage/manifest.h"
#include "storage/memtable.h"
#include "storage/mutex.h"
#include "storage/segment_log.h"
#include "storage/wal.h"

namespace railyard::storage {

// An on-disk index with its filter.
struct DiskIndex {
  std::shared_ptr<IndexFile> file;
  std::shared_ptr<PagedFilter> filter;
};

// The on-disk indexes, newest first. Immutable once published; readers hold it by shared_ptr.
struct IndexSet {
  std::vector<std::shared_ptr<DiskIndex>> indexes;
};

// Lock order (ACQUIRED_AFTER on the members): write_mu_ -> change_mu_ -> mem_mu_ -> set_mu_ ->
// bg_mu_, and write_mu_ -> wal_sync_mu_.
class DocStoreImpl final : public DocStore {
 public:
  DocStoreImpl(const Options& options, std::string directory);
  ~DocStoreImpl() override;

  Status Init();

  Status Put(uint64_t id, std::string_view doc) override RAILYARD_EXCLUDES(write_mu_);
  Status Delete(uint64_t id) override RAILYARD_EXCLUDES(write_mu_);
  Status Write(const WriteBatch& batch) override RAILYARD_EXCLUDES(write_mu_);
  Status Get(uint64_t id, std::string* doc) override RAILYARD_EXCLUDES(mem_mu_, set_mu_);
  Status Locate(uint64_t id, DocLocation* location) override RAILYARD_EXCLUDES(mem_mu_, set_mu_);
  Status Flush() override RAILYARD_EXCLUDES(write_mu_);
  Status CompactAll() override RAILYARD_EXCLUDES(write_mu_, change_mu_);
  Status Snapshot(const std::string& directory, SnapshotInfo* info) override
      RAILYARD_EXCLUDES(write_mu_, change_mu_);
  Status CompactIndexes(const std::vector<uint64_t>& index_ids) override
      RAILYARD_EXCLUDES(change_mu_);
  Stats GetStats() override RAILYARD_EXCLUDES(change_mu_, mem_mu_, set_mu_);
  Status Close() override RAILYARD_EXCLUDES(write_mu_, bg_mu_);

  Status Write(const WriteBatch& batch, uint64_t* position) override RAILYARD_EXCLUDES(write_mu_);
  Status WriteNoWait(const WriteBatch& batch, uint64_t* position) override
      RAILYARD_EXCLUDES(write_mu_);
  uint64_t AppliedPosition() override;
  bool WaitForApplied(uint64_t position, std::chrono::steady_clock::time_point deadline) override
      RAILYARD_EXCLUDES(applied_mu_);
  LogPosition QueueEnd() override;
  uint64_t QueuePositionOf(LogPosition position) override;
  Status ReadQueue(LogPosition from, size_t max_bytes, QueueChunk* chunk) override;
  QueueLag LagOf(LogPosition from) override;
  bool WaitForQueuePast(LogPosition from, std::chrono::steady_clock::time_point deadline) override;
  Status ApplyQueue(LogPosition at, std::string_view blocks) override RAILYARD_EXCLUDES(write_mu_);

 private:
  // The memtable that is being written to disk, with what its flush must record.
  struct Frozen {
    std::shared_ptr<const MemTable> table;
    LogPosition horizon;    // Segment log position covering all its documents.
    uint64_t next_wal = 0;  // The log that took over; older logs go once it is on disk.
  };

  // Init's steps. Nothing else runs yet: the locks they take only let the analysis check them.
  // Creates the directory if asked and takes the store's LOCK.
  Status OpenDirectory();
  Status ReadManifest(const std::string& path) RAILYARD_REQUIRES(change_mu_);
  // Opens what the manifest lists: the segment log, the on-disk indexes, an empty memtable.
  Status LoadState() RAILYARD_REQUIRES(change_mu_);
  Status OpenIndex(uint64_t number, std::shared_ptr<DiskIndex>* out);
  Status Replay() RAILYARD_EXCLUDES(change_mu_, mem_mu_);
  // The line that says what Replay found: records, documents, torn bytes, damage.
  void LogRecovery(size_t logs, const ReplayReport& total, uint64_t documents, uint64_t rewritten);
  Status ApplyOps(std::span<const WalOp> ops) RAILYARD_EXCLUDES(change_mu_, mem_mu_);
  Status FlushDuringReplay() RAILYARD_EXCLUDES(change_mu_, mem_mu_);

  // Appends the ops to the segment log (one block), the WAL and the memtable. `position`, if given,
  // receives the queue position that holds them all.
  Status WriteOps(std::span<WalOp> ops, uint64_t* position, bool may_wait = true)
      RAILYARD_EXCLUDES(write_mu_);
  // Takes write_mu_; without `may_wait`, only if it comes free within a few tries (another
  // writer's append), false otherwise.
  bool LockWriters(bool may_wait) RAILYARD_TRY_ACQUIRE(true, write_mu_);
  // Write and WriteNoWait: an empty batch answers the applied position; the rest goes to WriteOps.
  Status WriteBatchOps(const WriteBatch& batch, uint64_t* position, bool may_wait)
      RAILYARD_EXCLUDES(write_mu_);
  // Refuses writes the store cannot take now (closed, failed log sync).
  Status WritableLocked() RAILYARD_REQUIRES(write_mu_) RAILYARD_EXCLUDES(wal_sync_mu_);
  // Logs `ops` (already placed in the segment log, or about to be) and indexes them.
  Status LogAndIndex(std::span<const WalOp> ops) RAILYARD_REQUIRES(write_mu_)
      RAILYARD_EXCLUDES(mem_mu_);
  Status LogOps(std::span<const WalOp> ops) RAILYARD_REQUIRES(write_mu_) RAILYARD_EXCLUDES(bg_mu_);
  // Into the memtable, then out of the document cache.
  void IndexOps(std::span<const WalOp> ops) RAILYARD_REQUIRES(write_mu_) RAILYARD_EXCLUDES(mem_mu_);
  // One group of a replica's fetched blocks: WAL, segment log, memtable.
  Status ApplyBlocksLocked(LogPosition at, std::string_view blocks, std::span<const WalOp> ops)
      RAILYARD_REQUIRES(write_mu_);
  void PublishApplied() RAILYARD_EXCLUDES(applied_mu_);
  void SealLoop() RAILYARD_EXCLUDES(seal_mu_, write_mu_);
  // After a write began a new open block: the seal thread writes it out by seal_after.
  void ScheduleSeal() RAILYARD_EXCLUDES(seal_mu_);
  Status MakeRoom(size_t count) RAILYARD_REQUIRES(write_mu_) RAILYARD_EXCLUDES(bg_mu_);
  Status Freeze() RAILYARD_REQUIRES(write_mu_) RAILYARD_EXCLUDES(mem_mu_, bg_mu_);
  Status StartWal() RAILYARD_REQUIRES(write_mu_) RAILYARD_EXCLUDES(wal_sync_mu_);
  void RecordSyncFailure(const Status& failure) RAILYARD_EXCLUDES(wal_sync_mu_);
  Status SyncFailure() RAILYARD_EXCLUDES(wal_sync_mu_);  // Ok until a log fsync has failed.
  // True if the memtable has room for `count` more entries.
  bool MemHasRoom(size_t count) const RAILYARD_EXCLUDES(mem_mu_);
  // The in-memory index's size: memtable_entries, but on a replica never less than one whole
  // block (up to 65535 entries), which it must index at once however small memtable_entries is.
  size_t MemTableCapacity() const;
  size_t MemEntries() const RAILYARD_EXCLUDES(mem_mu_);
  uint64_t WalStart() RAILYARD_EXCLUDES(change_mu_);
  // The background thread has nothing to wait for: no flush pending, stopping, or failed.
  bool BackgroundSettled() const RAILYARD_REQUIRES(bg_mu_);
  Status FlushFrozen(const Frozen& frozen) RAILYARD_EXCLUDES(change_mu_, mem_mu_);
  Status InstallIndex(const std::vector<std::shared_ptr<DiskIndex>>& inputs,
                      std::unique_ptr<EntrySource> newest_source, uint64_t newest_entries,
                      const Frozen* frozen, bool manual) RAILYARD_REQUIRES(change_mu_)
      RAILYARD_EXCLUDES(set_mu_);
  // Merges the inputs (and the memtable's entries, if any) into index `number`; on failure no
  // file of it is left. `*output` stays null if every entry cancelled out.
  Status WriteMergedIndex(const std::vector<std::shared_ptr<DiskIndex>>& inputs,
                          std::unique_ptr<EntrySource> newest_source, uint64_t newest_entries,
                          bool becomes_oldest, uint64_t number, MergeResult* merged,
                          std::shared_ptr<DiskIndex>* output);
  // Writes the manifest that lists `next_set`, then adopts it as manifest_.
  Status CommitManifest(const IndexSet& next_set, const Frozen* frozen, const MergeResult& merged)
      RAILYARD_REQUIRES(change_mu_);
  void UpdateSizeRule(const IndexSet& set);
  std::shared_ptr<const IndexSet> CurrentSet() const RAILYARD_EXCLUDES(set_mu_);
  std::string PathFor(const char* prefix, uint64_t number, const char* suffix) const;
  void DeleteFile(const std::string& path);
  void RemoveOldWals(uint64_t keep_from);

  // Copies the current indexes into memory, newest first, while Options::index_memory_budget has
  // room (index_memory.h). If one is left mapped that would fit once the copies of replaced indexes
  // still held by readers are freed, the background thread tries again a second later.
  void LoadIndexesIntoMemory() RAILYARD_EXCLUDES(set_mu_, bg_mu_);
  Status CompactIndexesNow(const std::vector<uint64_t>& index_ids) RAILYARD_EXCLUDES(change_mu_);

  void BackgroundLoop() RAILYARD_EXCLUDES(bg_mu_);
  void SyncLoop() RAILYARD_EXCLUDES(bg_mu_, wal_sync_mu_);
  Status WaitForBackground(std::chrono::milliseconds timeout) RAILYARD_EXCLUDES(bg_mu_);

  const Options options_;
  Env* const env_;
  const std::string directory_;
  std::string lock_path_;
  int lock_ = -1;  // Env::LockFile's handle while the store holds its LOCK.
  SegmentLog segments_;
  BloomPager pager_;
  std::atomic<uint64_t> next_file_{1};

  Mutex write_mu_;  // Serialises writers and log rotation.
  WalWriter wal_ RAILYARD_GUARDED_BY(write_mu_);
  Mutex wal_sync_mu_ RAILYARD_ACQUIRED_AFTER(write_mu_);
  std::shared_ptr<File> wal_sync_file_
      RAILYARD_GUARDED_BY(wal_sync_mu_);  // The current log, for fsync.
  // Set by the first failed fsync of the log and never cleared: after a failed fsync the kernel
  // may have dropped the unwritten pages and a later fsync can succeed without them, so a write
  // acknowledged after it could sit behind a hole in the log. Writes are refused until a reopen
  // replays what really is on disk. Reads go on.
  std::atomic<bool> sync_failed_{false};
  Status sync_failure_ RAILYARD_GUARDED_BY(wal_sync_mu_);
  bool closed_ RAILYARD_GUARDED_BY(write_mu_) = false;

  // Serialises changes to the index set (flushes, compactions).
  Mutex change_mu_ RAILYARD_ACQUIRED_AFTER(write_mu_);
  Manifest manifest_ RAILYARD_GUARDED_BY(change_mu_);
  std::deque<CompactionStats> history_ RAILYARD_GUARDED_BY(change_mu_);
  uint64_t flushes_ RAILYARD_GUARDED_BY(change_mu_) = 0;
  uint64_t compactions_ RAILYARD_GUARDED_BY(change_mu_) = 0;
  uint64_t bytes_compacted_ RAILYARD_GUARDED_BY(change_mu_) = 0;

  mutable SharedMutex mem_mu_ RAILYARD_ACQUIRED_AFTER(change_mu_);
  std::unique_ptr<MemTable> mem_ RAILYARD_GUARDED_BY(mem_mu_) RAILYARD_PT_GUARDED_BY(mem_mu_);
  std::shared_ptr<const MemTable> frozen_table_ RAILYARD_GUARDED_BY(mem_mu_);

  mutable Mutex set_mu_ RAILYARD_ACQUIRED_AFTER(mem_mu_);
  std::shared_ptr<const IndexSet> set_ RAILYARD_GUARDED_BY(set_mu_);

  Mutex bg_mu_ RAILYARD_ACQUIRED_AFTER(set_mu_);
  CondVar bg_cv_;
  std::optional<Frozen> pending_ RAILYARD_GUARDED_BY(bg_mu_);  // Waiting for or under flush.
  bool bg_stop_ RAILYARD_GUARDED_BY(bg_mu_) = false;
  Status bg_error_ RAILYARD_GUARDED_BY(bg_mu_);
  bool index_load_due_ RAILYARD_GUARDED_BY(bg_mu_) = false;  // LoadIndexesIntoMemory again soon.
  std::thread bg_thread_;
  std::thread sync_thread_;
  // SyncPolicy::kInterval: log appends so far, and how many the sync thread had synced when it
  // last went idle (it sleeps until the next append instead of fsyncing an unchanged log every
  // interval; the first append after that wakes it).
  std::atomic<uint64_t> wal_appends_{0};
  std::atomic<uint64_t> wal_synced_when_idle_{0};
  const std::shared_ptr<IndexMemoryBudget> index_memory_;

  DocCache cache_;

  Mutex seal_mu_ RAILYARD_ACQUIRED_AFTER(write_mu_);
  CondVar seal_cv_;
  bool seal_pending_ RAILYARD_GUARDED_BY(seal_mu_) = false;
  bool seal_stop_ RAILYARD_GUARDED_BY(seal_mu_) = false;
  std::thread seal_thread_;

  Mutex applied_mu_;
  CondVar applied_cv_;
  std::atomic<uint64_t> applied_position_{0};  // A replica's; an updater applies all it writes.

  std::atomic<uint64_t> reads_{0};
  std::atomic<uint64_t> writes_{0};
  std::atomic<uint64_t> deletes_{0};
  std::atomic<uint64_t> stalls_{0};
  std::atomic<uint64_t> stall_us_{0};
  std::atomic<uint64_t> corruptions_{0};
  std::atomic<uint64_t> appended_docs_{0};
  std::atomic<uint64_t> dead_docs_{0};
  std::atomic<uint64_t> bloom_negatives_{0};
  std::atomic<uint64_t> wal_bytes_{0};  // wal_.bytes(), readable without write_mu_.
};

}  // namespace railyard::storage
