// SPDX-License-Identifier: Apache-2.0
#include "storage/doc_cache.h"

#include "storage/hash.h"

namespace railyard::storage {

DocCache::DocCache(size_t budget_bytes)
    : budget_bytes_(budget_bytes), shard_budget_(budget_bytes / kShards) {
  if (budget_bytes_ == 0) return;
  for (size_t i = 0; i < kShards; ++i) shards_.push_back(std::make_unique<Shard>());
}

DocCache::Shard& DocCache::ShardOf(uint64_t id) { return *shards_[MixId(id) % kShards]; }

bool DocCache::Lookup(uint64_t id, std::string* doc) {
  if (!enabled()) return false;
  Shard& shard = ShardOf(id);
  ReaderLock lock(&shard.mu);
  const auto it = shard.map.find(id);
  if (it == shard.map.end()) {
    shard.misses.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  Entry& entry = *it->second;
  if (!entry.used.load(std::memory_order_relaxed))
    entry.used.store(true, std::memory_order_relaxed);
  doc->assign(entry.doc);
  shard.hits.fetch_add(1, std::memory_order_relaxed);
  return true;
}

uint64_t DocCache::Ticket(uint64_t id) {
  if (!enabled()) return 0;
  Shard& shard = ShardOf(id);
  ReaderLock lock(&shard.mu);
  return shard.epoch;
}

void DocCache::Insert(uint64_t id, std::string_view doc, uint64_t ticket) {
  if (!enabled() || doc.size() + kEntryOverhead > shard_budget_) return;
  Shard& shard = ShardOf(id);
  WriterLock lock(&shard.mu);
  // An invalidation since the ticket may have been of this id: the copy could be older than it.
  if (shard.epoch != ticket) return;
  EraseLocked(shard, id);
  shard.entries.emplace_front(id, doc);
  shard.map[id] = shard.entries.begin();
  shard.bytes += doc.size() + kEntryOverhead;
  while (shard.bytes > shard_budget_ && !shard.entries.empty()) EvictLocked(shard);
}

void DocCache::EvictLocked(Shard& shard) {
  // Second chance: a used entry goes back to the front, unmarked; a bounded number of times, so a
  // shard where everything is used still evicts.
  for (size_t turns = shard.entries.size(); turns > 0; --turns) {
    Entry& last = shard.entries.back();
    if (!last.used.load(std::memory_order_relaxed)) break;
    last.used.store(false, std::memory_order_relaxed);
    shard.entries.splice(shard.entries.begin(), shard.entries, std::prev(shard.entries.end()));
  }
  EraseLocked(shard, shard.entries.back().id);
}

void DocCache::Invalidate(uint64_t id) {
  if (!enabled()) return;
  Shard& shard = ShardOf(id);
  WriterLock lock(&shard.mu);
  ++shard.epoch;
  if (shard.map.count(id) != 0) {
    EraseLocked(shard, id);
    shard.invalidations.fetch_add(1, std::memory_order_relaxed);
  }
}

void DocCache::EraseLocked(Shard& shard, uint64_t id) {
  const auto it = shard.map.find(id);
  if (it == shard.map.end()) return;
  shard.bytes -= it->second->doc.size() + kEntryOverhead;
  shard.entries.erase(it->second);
  shard.map.erase(it);
}

DocCacheStats DocCache::GetStats() const {
  DocCacheStats stats;
  stats.budget_bytes = budget_bytes_;
  for (const auto& shard : shards_) {
    ReaderLock lock(&shard->mu);
    stats.bytes += shard->bytes;
    stats.entries += shard->map.size();
    stats.hits += shard->hits.load(std::memory_order_relaxed);
    stats.misses += shard->misses.load(std::memory_order_relaxed);
    stats.invalidations += shard->invalidations.load(std::memory_order_relaxed);
  }
  return stats;
}

}  // namespace railyard::storage
