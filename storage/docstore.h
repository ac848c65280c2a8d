// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/options.h"
#include "storage/queue.h"
#include "storage/stats.h"
#include "storage/status.h"
#include "storage/write_batch.h"

namespace railyard::storage {

// Where a store holds a document and what answered for it (DocStore::Locate), for an operator
// asking which copies of a document a cluster holds.
struct DocLocation {
  enum class Source {
    kNone,      // No index holds the id: never written here, or compacted away after a deletion.
    kMemtable,  // The in-memory index (not yet written to disk).
    kIndex,     // On-disk index `index_id`.
  };
  Source source = Source::kNone;
  bool deleted = false;  // The newest entry is a deletion (a tombstone).
  // The queue position a replica must have applied to hold this entry, as Write's `position`
  // (0 with Source::kNone).
  uint64_t position = 0;
  uint64_t size = 0;      // Of a live document, in bytes.
  uint64_t checksum = 0;  // Of a live document: XXH3-64 of its bytes, equal on every copy.
  // Source::kIndex: the page of the index's Bloom filter that holds the id's bits, and whether it
  // was in memory (if not, the index was searched without asking it).
  uint64_t index_id = 0;
  uint32_t bloom_page = 0;
  bool bloom_page_resident = false;
  // Newer on-disk indexes whose filter ruled the id out before the one that answered.
  uint32_t indexes_skipped = 0;
};

// Docstore v2: documents keyed by 64-bit ids, appended to an immutable segment log and found
// through an LSM-tree index with paged Bloom filters; a write-ahead log makes acknowledged writes
// survive crashes (how far: Options::sync).
//
// Thread safety: every method may be called from any number of threads at once.
class DocStore {
 public:
  // Opens (or creates) the store in `directory`.
  static Status Open(const Options& options, const std::string& directory,
                     std::unique_ptr<DocStore>* store);

  virtual ~DocStore() = default;

  virtual Status Put(uint64_t id, std::string_view doc) = 0;
  virtual Status Delete(uint64_t id) = 0;
  virtual Status Write(const WriteBatch& batch) = 0;
  // NotFound if absent or deleted; Corruption (naming the file) if the document cannot be read
  // back intact.
  virtual Status Get(uint64_t id, std::string* doc) = 0;
  // Where `id` is held, as Get finds it, without the document cache and without counting as a read
  // (the Bloom filters' figures do not move). OK with Source::kNone if no index holds it;
  // Corruption as Get.
  virtual Status Locate(uint64_t id, DocLocation* location) = 0;

  // Writes the in-memory index to disk as a new index (compacting by the seed's rule) and waits
  // for background work to finish.
  virtual Status Flush() = 0;
  // Merges every on-disk index into one.
  virtual Status CompactAll() = 0;

  // A consistent copy of the store, as it stood at one queue position, in `directory` (which
  // must not exist; its parent must, on this store's filesystem for links to work): every index
  // file and closed segment hard-linked (copied where the filesystem refuses a link), the segment
  // being written copied up to the queue's end, and a MANIFEST; no write-ahead log. Opened as a
  // store, it holds what this one held at `info->position`, and as a replica it follows its
  // updater from there without fetching the queue again. The open block is sealed and the
  // in-memory index flushed first; writes wait only while that and the index files' links are
  // made. Built in `directory`.partial, renamed into place once complete and synced, so a crash
  // leaves no half snapshot under the name (a stale .partial is replaced). InvalidArgument if
  // `directory` exists.
  struct SnapshotInfo {
    uint64_t position = 0;  // Queue position: everything before it is in the snapshot.
    uint64_t files_linked = 0, bytes_linked = 0;
    uint64_t files_copied = 0, bytes_copied = 0;
  };
  virtual Status Snapshot(const std::string& directory, SnapshotInfo* info) = 0;
  // Merges the named on-disk indexes, which must be adjacent in age, into one.
  virtual Status CompactIndexes(const std::vector<uint64_t>& index_ids) = 0;

  virtual Stats GetStats() = 0;

  // --- Positions and replication (docs/formats.md, "Replication") -----------------------------
  // Queue positions count bytes of the docstore queue across its segment files. A batch's entries
  // share one block (up to 65535 of them), so a replica applies a batch at once.

  // As Write, also giving the position a replica must have applied to hold the batch.
  virtual Status Write(const WriteBatch& batch, uint64_t* position) = 0;
  // As Write(batch, position), for a thread that must not wait (an RPC server's I/O thread):
  // WouldWait, having done nothing, where Write would wait for another writer holding the store
  // for longer than a write takes, for the in-memory index to be frozen or flushed, or for a sync
  // (Options::sync kEveryWrite, or a full segment's before the next begins). What it does do is
  // Write's: copies into mapped files and the page cache, no sync.
  virtual Status WriteNoWait(const WriteBatch& batch, uint64_t* position) = 0;
  // Everything before this position is applied (and readable) here.
  virtual uint64_t AppliedPosition() = 0;
  // Waits until AppliedPosition() reaches `position` or `deadline` comes; true if it did.
  virtual bool WaitForApplied(uint64_t position,
                              std::chrono::steady_clock::time_point deadline) = 0;

  // Updater: the queue's end; whole verified blocks from a follower's position (see
  // SegmentLog::ReadBlocks for the errors); how far a position is behind; waiting (without
  // polling) until the queue grows past a position.
  virtual LogPosition QueueEnd() = 0;
  virtual uint64_t QueuePositionOf(LogPosition position) = 0;
  virtual Status ReadQueue(LogPosition from, size_t max_bytes, QueueChunk* chunk) = 0;
  virtual QueueLag LagOf(LogPosition from) = 0;
  virtual bool WaitForQueuePast(LogPosition from,
                                std::chrono::steady_clock::time_point deadline) = 0;

  // Replica (Options::replica): verifies the blocks fetched from the updater and applies them at
  // `at` (QueueEnd(), or the start of the next segment): written byte for byte to the segment
  // log, logged (without their documents) to the WAL and indexed, so a restart resumes at
  // QueueEnd() with nothing lost or applied twice. Corruption, applying nothing of a block that
  // fails its checksum (the blocks before it are applied); InvalidArgument if `at` does not
  // continue this queue.
  virtual Status ApplyQueue(LogPosition at, std::string_view blocks) = 0;
  // Flushes nothing; syncs the log, stops background work and closes files. Idempotent; the
  // destructor calls it.
  virtual Status Close() = 0;
};

}  // namespace railyard::storage
