// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: the docstore queue, an append-only series of segment files made of blocks.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "storage/block_prefetch.h"
#include "storage/file.h"
#include "storage/index_entry.h"
#include "storage/mutex.h"
#include "storage/options.h"
#include "storage/queue.h"
#include "storage/segment_block.h"
#include "storage/verified_marks.h"

namespace railyard::storage {

inline constexpr size_t kMaxDocumentBytes = 64u << 20;

// Documents are appended to an in-memory open block, which is written as one block when full or
// when Seal() is called; a segment file is closed and a new one begun past segment_bytes. An
// address is final the moment Append returns, even before its block is written.
//
// Thread safety: Append and Seal must be serialised by the caller; Read, Holds and the accessors
// may run concurrently with them and with each other.
class SegmentLog {
 public:
  SegmentLog(std::string directory, const Options& options);
  SegmentLog(const SegmentLog&) = delete;
  SegmentLog& operator=(const SegmentLog&) = delete;

  // Finds the segment files. Past `durable` (what the last flush made durable) a torn or damaged
  // tail is truncated with a warning, since the write-ahead log still holds those documents;
  // before it, damage is left in place and reported by Read for the documents it affects.
  Status Open(LogPosition durable) RAILYARD_EXCLUDES(mu_);

  // Appends an entry (kPut, or kDelete with an empty `doc`). Only when `may_start_block` may the
  // open block be written first to make room (or a new segment begun), so the entries of one
  // batch, appended with false after the first, share a block and a replica applies them at once.
  // Beginning a new segment syncs the full one first (without holding up reads). With `may_sync`
  // false (a thread that must not wait) an append that would begin one answers WouldWait instead,
  // having at most written the open block, as Seal would.
  Status Append(uint64_t id, EntryKind kind, std::string_view doc, DocAddress* address,
                bool may_start_block = true, bool may_sync = true) RAILYARD_EXCLUDES(mu_);
  // Writes the open block, if any.
  Status Seal() RAILYARD_EXCLUDES(mu_);
  // When the open block got its first entry; nullopt when it is empty.
  std::optional<std::chrono::steady_clock::time_point> open_block_since() const
      RAILYARD_EXCLUDES(mu_);
  // Makes everything written before `position` durable.
  Status SyncTo(LogPosition position) RAILYARD_EXCLUDES(mu_);
  // The position just after the last written block.
  LogPosition end() const RAILYARD_EXCLUDES(mu_);
  // A position as a queue position: bytes of all earlier segments plus the offset.
  uint64_t QueuePositionOf(LogPosition position) const RAILYARD_EXCLUDES(mu_);
  // end() as a queue position; readable without the lock.
  uint64_t end_position() const { return end_position_.load(std::memory_order_acquire); }
  // Waits until the end passes `queue_position` or `deadline` comes; true if it has passed.
  bool WaitForEndPast(uint64_t queue_position, std::chrono::steady_clock::time_point deadline)
      RAILYARD_EXCLUDES(end_mu_);

  // --- Replication (docs/formats.md). -----------------------------------------------------
  // Updater: copies whole blocks from `from` (the end of a closed segment moves on to the next),
  // up to about `max_bytes` (one larger block is still read whole), verifying each. InvalidArgument
  // if `from` is past the end or no block begins there (the follower has diverged); Corruption,
  // naming the file and offset, if the next block is damaged.
  Status ReadBlocks(LogPosition from, size_t max_bytes, QueueChunk* chunk) const
      RAILYARD_EXCLUDES(mu_);
  QueueLag LagOf(LogPosition from) const RAILYARD_EXCLUDES(mu_);
  // Replica: writes blocks, already verified, at `at`, which must be end() or the start of the
  // next segment (closing the current one). Never splits or rolls segments on its own.
  Status AppendBlocks(LogPosition at, std::string_view blocks) RAILYARD_EXCLUDES(mu_);

  // Loads the document at `address`, which must hold `id` (not a deletion). A block's checksum
  // is verified on its first read in each VerifiedMarks period, not on every read.
  Status Read(const DocAddress& address, uint64_t id, std::string* doc) const
      RAILYARD_EXCLUDES(mu_);
  // True if a written, intact block at `address` holds an entry of `id` and `kind` there.
  bool Holds(const DocAddress& address, uint64_t id, EntryKind kind) const RAILYARD_EXCLUDES(mu_);

  uint64_t stored_bytes() const RAILYARD_EXCLUDES(mu_);
  // Reads that asked for their block's pages before touching them (block_prefetch.h).
  uint64_t advised_reads() const { return advised_reads_.load(std::memory_order_relaxed); }

 private:
  std::string SegmentPath(uint32_t segment) const;
  Status OpenForAppend(uint32_t segment) RAILYARD_REQUIRES(mu_);
  Status ScanAndTruncate(uint32_t segment, uint64_t from);
  Status WriteOpenBlock() RAILYARD_REQUIRES(mu_);
  // Makes the current segment durable; see Append.
  Status SyncCurrentSegment() RAILYARD_EXCLUDES(mu_);
  // Begins the next segment after the current one, synced.
  Status StartNextSegment() RAILYARD_REQUIRES(mu_);
  Status AddToOpenBlock(uint64_t id, EntryKind kind, std::string_view doc, DocAddress* address)
      RAILYARD_REQUIRES(mu_);
  // Reads the entry at `address` (the open block or a written block).
  Status ReadEntry(const DocAddress& address, uint64_t id, std::string* doc, EntryKind* kind) const
      RAILYARD_EXCLUDES(mu_);
  // After the end moved: publishes it and wakes WaitForEndPast.
  void PublishEnd() RAILYARD_REQUIRES(mu_) RAILYARD_EXCLUDES(end_mu_);
  // A read-only mapping of one segment file. The current segment is mapped with room to grow, so
  // appended blocks become readable without remapping; reads stay below its visible size.
  struct Mapping {
    Mapping() = default;
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    ~Mapping();
    Env* env = nullptr;
    const char* data = nullptr;
    size_t length = 0;
    std::string path;
    // Blocks a read verified recently, slotted by offset / 4 KiB and keyed by their offset.
    std::unique_ptr<VerifiedMarks> verified;
  };
  Status Map(const std::string& path, size_t length, std::shared_ptr<Mapping>* out) const;
  Status OpenForReading(uint32_t segment, uint64_t size, size_t map_length) RAILYARD_REQUIRES(mu_);

  const std::string directory_;
  const Options& options_;

  mutable SharedMutex mu_;
  struct Readable {
    std::shared_ptr<Mapping> mapping;
    uint64_t visible = 0;  // Bytes readers may touch (the current segment: current_size_).
  };
  std::map<uint32_t, Readable> readable_ RAILYARD_GUARDED_BY(mu_);
  File writer_ RAILYARD_GUARDED_BY(mu_);
  // The current segment, copied out under mu_ and fsync'ed without it.
  std::shared_ptr<File> writer_sync_ RAILYARD_GUARDED_BY(mu_);
  uint32_t current_ RAILYARD_GUARDED_BY(mu_) = 0;
  uint64_t current_size_ RAILYARD_GUARDED_BY(mu_) = 0;
  uint64_t closed_bytes_ RAILYARD_GUARDED_BY(mu_) = 0;  // Bytes in earlier segments.
  BlockBuilder open_block_ RAILYARD_GUARDED_BY(mu_);
  std::chrono::steady_clock::time_point open_since_ RAILYARD_GUARDED_BY(mu_);
  Status broken_ RAILYARD_GUARDED_BY(mu_);  // Set: writes are refused.
  // Each segment's first byte as a queue position.
  std::map<uint32_t, uint64_t> segment_start_ RAILYARD_GUARDED_BY(mu_);
  // The blocks this process wrote, newest last (bounded): their end and when they were written,
  // for a follower's lag in entries and seconds.
  struct BlockMark {
    uint64_t start = 0;    // Queue position of the block.
    uint64_t end = 0;      // Queue position just after it.
    uint64_t count = 0;    // Its entries.
    uint64_t entries = 0;  // Entries this process wrote up to its end.
    int64_t unix_us = 0;
  };
  std::deque<BlockMark> marks_ RAILYARD_GUARDED_BY(mu_);
  uint64_t entries_written_ RAILYARD_GUARDED_BY(mu_) = 0;
  static constexpr size_t kMaxMarks = 1 << 16;
  // A follower's lag in entries is counted block by block over at most this many blocks.
  static constexpr size_t kLagBlocksCounted = 1024;

  mutable BlockPrefetchPolicy prefetch_;
  mutable std::atomic<uint64_t> advised_reads_{0};

  std::atomic<uint64_t> end_position_{0};
  Mutex end_mu_ RAILYARD_ACQUIRED_AFTER(mu_);
  CondVar end_cv_;
  // How far SyncTo last made the current segment durable: a follower's fetch on an idle updater
  // syncs nothing new (it used to fsync the segment on every fetch, once a second per replica).
  Mutex synced_mu_ RAILYARD_ACQUIRED_AFTER(mu_);
  LogPosition synced_ RAILYARD_GUARDED_BY(synced_mu_);
};

}  // namespace railyard::storage
