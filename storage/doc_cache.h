// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: the document cache in front of the segment files (the seed's memcached
// tier, in process).

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "storage/mutex.h"
#include "storage/stats.h"

namespace railyard::storage {

// Documents by id within a byte budget, split into shards to keep readers apart; a hit takes its
// shard's lock shared and only marks the entry used, and eviction gives used entries a second
// chance (CLOCK), which keeps the hottest documents like an LRU would without readers writing. It
// never serves a copy older than what the store has applied: a writer invalidates an id after
// changing the store, and a reader's copy is only inserted if no invalidation reached its shard
// since the reader took its ticket before reading the store (else the copy may predate the change).
//
// Thread safety: every method may be called from any number of threads at once.
class DocCache {
 public:
  explicit DocCache(size_t budget_bytes);
  DocCache(const DocCache&) = delete;
  DocCache& operator=(const DocCache&) = delete;

  bool enabled() const { return budget_bytes_ > 0; }
  // True, with the document, on a hit.
  bool Lookup(uint64_t id, std::string* doc);
  // Take before reading the store; pass to Insert with what was read.
  uint64_t Ticket(uint64_t id);
  void Insert(uint64_t id, std::string_view doc, uint64_t ticket);
  // After the store changed `id` (a write, a delete, an applied block).
  void Invalidate(uint64_t id);
  DocCacheStats GetStats() const;

 private:
  struct Entry {
    Entry(uint64_t i, std::string_view d) : id(i), doc(d) {}
    uint64_t id;
    std::string doc;
    std::atomic<bool> used{false};  // Set by hits under the shared lock.
  };
  struct alignas(64) Shard {
    SharedMutex mu;
    // Newest first; eviction looks at the back.
    std::list<Entry> entries RAILYARD_GUARDED_BY(mu);
    std::unordered_map<uint64_t, std::list<Entry>::iterator> map RAILYARD_GUARDED_BY(mu);
    uint64_t bytes RAILYARD_GUARDED_BY(mu) = 0;
    uint64_t epoch RAILYARD_GUARDED_BY(mu) = 0;  // Bumped by every invalidation.
    std::atomic<uint64_t> hits{0};
    std::atomic<uint64_t> misses{0};
    std::atomic<uint64_t> invalidations{0};
  };
  static constexpr size_t kShards = 64;
  static constexpr size_t kEntryOverhead = 64;  // List node and map slot, roughly.
  Shard& ShardOf(uint64_t id);
  void EraseLocked(Shard& shard, uint64_t id) RAILYARD_REQUIRES(shard.mu);
  void EvictLocked(Shard& shard) RAILYARD_REQUIRES(shard.mu);

  const size_t budget_bytes_;
  const size_t shard_budget_;
  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace railyard::storage
