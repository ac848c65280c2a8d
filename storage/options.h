// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace railyard::storage {

class Env;

enum class SyncPolicy {
  kNone,        // Each write reaches the OS before it is acknowledged: survives a process crash.
  kInterval,    // Also fsync'ed every sync_interval: loses at most that much on a machine crash.
  kEveryWrite,  // fsync'ed before it is acknowledged: survives a machine crash.
};

// "none", "interval" or "every-write", as configs and logs spell it.
constexpr const char* SyncPolicyName(SyncPolicy policy) {
  switch (policy) {
    case SyncPolicy::kNone:
      return "none";
    case SyncPolicy::kInterval:
      return "interval";
    case SyncPolicy::kEveryWrite:
      return "every-write";
  }
  return "?";
}

enum class LogLevel { kInfo, kWarning, kError };
using Logger = std::function<void(LogLevel level, std::string_view message)>;

struct Options {
  bool create_if_missing = true;
  bool error_if_exists = false;

  // The in-memory index is written to disk as a new index once it holds this many entries.
  size_t memtable_entries = 1 << 20;
  // Uncompressed size a segment block is filled to before it is written.
  size_t block_bytes = 4096;
  // A segment file is closed and a new one started past this size.
  uint64_t segment_bytes = 256ull << 20;

  // The default docs/guide.md's "Operating safely" documents: a machine crash loses at most one
  // interval.
  SyncPolicy sync = SyncPolicy::kInterval;
  std::chrono::milliseconds sync_interval{100};

  // Bloom filters: about this false-positive rate, split into pages of this size; the pager keeps
  // the most useful pages resident within the budget.
  double bloom_false_positive_rate = 0.02;
  size_t bloom_page_bytes = 4096;
  size_t bloom_memory_budget = 64ull << 20;
  // "Recent requests" of a page are counted over about this window.
  std::chrono::milliseconds bloom_usefulness_window{std::chrono::seconds(60)};
  // How often pages are re-ranked (in the background, never on the read path).
  std::chrono::milliseconds bloom_rerank_interval{std::chrono::seconds(1)};
  // Lookups a page must have seen before its measured "no" rate replaces the size rule. Also the
  // window the rate is measured over: a page's latest this-many to twice-this-many lookups, so the
  // ranking follows a changed workload within twice this many lookups per page (bloom_pager.h).
  uint32_t bloom_min_lookups_for_measured_rate = 1000;

  // On-disk indexes are copied into the process's memory, newest first, while their pages fit in
  // this budget, so that under memory pressure a lookup's index page stays resident ahead of the
  // page cache's document blocks; an index that does not fit stays memory-mapped (and is copied
  // later if a flush or compaction frees room). This memory is bounded by the budget at all
  // times, compactions included (an index is copied only once all its pages fit beside the
  // copies still held). About 20 bytes per key on disk: 10M keys take about 200 MB. 0: every index
  // stays mapped.
  size_t index_memory_budget = 256ull << 20;

  // A writer that finds both the in-memory index full and the previous one still being written
  // waits at most this long, then fails with Busy. Waits are counted in the stats.
  std::chrono::milliseconds max_write_stall{std::chrono::seconds(30)};
  // A wait that lasts this long is logged as a warning, once: the disk is slower than the writes
  // (an fsync of the previous index's data that takes seconds), which the operator should hear of
  // before writes fail.
  std::chrono::milliseconds write_stall_warning{std::chrono::seconds(5)};

  // A replica's store takes changes only from its updater's queue (DocStore::ApplyQueue); Put,
  // Delete and Write are refused with InvalidArgument.
  bool replica = false;
  // A written document's open block is written out (sealed) at most this long after its first
  // entry, even if not full, so replicas see a lone write promptly. Zero: only when full or at a
  // flush.
  std::chrono::milliseconds seal_after{0};

  // Documents kept in memory in front of the segment files; 0 turns the cache off.
  size_t doc_cache_bytes = 0;

  // Every file operation goes through this (not owned; must outlive the store). Null: POSIX.
  // Tests pass a FaultInjectingEnv (fault_env.h).
  Env* env = nullptr;

  // Receives warnings (a torn log tail truncated, a corrupt record skipped) and errors. Default:
  // stderr.
  Logger logger;
};

// options.env, or the POSIX environment when it is null.
Env* EnvOf(const Options& options);

}  // namespace railyard::storage
