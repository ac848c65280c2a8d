// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace railyard::storage {

struct IndexStats {
  uint64_t id = 0;  // Index file number.
  uint64_t entries = 0;
  uint64_t bytes = 0;
  std::chrono::system_clock::time_point created;
  uint64_t bloom_bytes = 0;
  uint64_t bloom_pages = 0;
  // Lookups the filter passed ("maybe") that the index then did not contain, over all lookups
  // the filter answered.
  double measured_false_positive_rate = 0;
  // 1 - this index's share of the keys in it and all older indexes (the seed's size rule).
  double p_no = 0;
  // Lookups that searched this index because its filter said "maybe" or its page was not
  // resident (a "no" spares the search).
  uint64_t index_searches = 0;
  // Its pages are read from a copy in memory (Options::index_memory_budget), not the mapped file.
  bool in_memory = false;
};

struct CompactionStats {
  std::vector<uint64_t> inputs;  // Index file numbers merged (0 stands for the in-memory index).
  uint64_t output = 0;
  uint64_t entries_written = 0;
  uint64_t bytes_written = 0;
  std::chrono::microseconds duration{0};
  bool manual = false;
  std::chrono::system_clock::time_point finished;
};

struct BloomPageStats {
  uint64_t index = 0;
  uint32_t page = 0;
  double recent_requests = 0;
  double p_no = 0;
  double usefulness = 0;
  bool resident = false;
};

struct DocCacheStats {
  uint64_t budget_bytes = 0;  // 0: the cache is off.
  uint64_t bytes = 0;
  uint64_t entries = 0;
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t invalidations = 0;  // Cached copies dropped because their document changed.
};

struct Stats {
  std::vector<IndexStats> indexes;           // Newest first.
  std::vector<CompactionStats> compactions;  // Oldest first (bounded history).
  uint64_t memtable_entries = 0;
  uint64_t memtable_capacity = 0;
  uint64_t index_entry_writes = 0;  // All entries ever written to index files: write amplification.
  std::vector<BloomPageStats> bloom_pages;
  uint64_t bloom_budget_bytes = 0;
  uint64_t bloom_resident_bytes = 0;
  uint64_t reads = 0;
  uint64_t writes = 0;
  uint64_t deletes = 0;
  uint64_t write_stalls = 0;
  std::chrono::microseconds stall_time{0};
  uint64_t segment_bytes = 0;  // Stored document bytes, live and dead.
  uint64_t live_bytes = 0;     // Estimated bytes of the newest copy of each document.
  double dead_byte_share = 0;
  uint64_t corruptions_seen = 0;
  DocCacheStats cache;
  // Since open, for monitoring (Prometheus counters; `compactions` above is a bounded history).
  uint64_t flushes = 0;           // In-memory indexes written to disk (merged or not).
  uint64_t compactions_done = 0;  // Index writes that merged at least one on-disk index.
  uint64_t bytes_compacted = 0;   // Bytes those merges wrote.
  uint64_t bloom_negatives = 0;   // Lookups a Bloom page answered "no" (the index was skipped).
  uint64_t wal_bytes = 0;         // Bytes in the current write-ahead log.
  // Why writes are refused (a failed fsync of the log, until the store is reopened); empty while
  // the store takes them.
  std::string writes_refused;
  // Index pages copied into memory (including indexes a reader still holds after a compaction
  // replaced them), never more than the budget (Options::index_memory_budget).
  uint64_t index_memory_bytes = 0;
  uint64_t index_memory_budget_bytes = 0;
  // Segment-log reads that asked for their block's pages up front, as reads were waiting on the
  // disk (storage/block_prefetch.h).
  uint64_t segment_reads_advised = 0;
};

}  // namespace railyard::storage
