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
  MutexLock lock(&shard.mu);
  const auto it = shard.map.find(id);
  if (it == shard.map.end()) {
    misses_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  shard.lru.splice(shard.lru.begin(), shard.lru, it->second);
  doc->assign(it->second->second);
  hits_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

uint64_t DocCache::Ticket(uint64_t id) {
  if (!enabled()) return 0;
  Shard& shard = ShardOf(id);
  MutexLock lock(&shard.mu);
  return shard.epoch;
}

void DocCache::Insert(uint64_t id, std::string_view doc, uint64_t ticket) {
  if (!enabled() || doc.size() + kEntryOverhead > shard_budget_) return;
  Shard& shard = ShardOf(id);
  MutexLock lock(&shard.mu);
  // An invalidation since the ticket may have been of this id: the copy could be older than it.
  if (shard.epoch != ticket) return;
  EraseLocked(shard, id);
  shard.lru.emplace_front(id, std::string(doc));
  shard.map[id] = shard.lru.begin();
  shard.bytes += doc.size() + kEntryOverhead;
  while (shard.bytes > shard_budget_ && !shard.lru.empty()) {
    EraseLocked(shard, shard.lru.back().first);
  }
}

void DocCache::Invalidate(uint64_t id) {
  if (!enabled()) return;
  Shard& shard = ShardOf(id);
  MutexLock lock(&shard.mu);
  ++shard.epoch;
  if (shard.map.count(id) != 0) {
    EraseLocked(shard, id);
    invalidations_.fetch_add(1, std::memory_order_relaxed);
  }
}

void DocCache::EraseLocked(Shard& shard, uint64_t id) {
  const auto it = shard.map.find(id);
  if (it == shard.map.end()) return;
  shard.bytes -= it->second->second.size() + kEntryOverhead;
  shard.lru.erase(it->second);
  shard.map.erase(it);
}

DocCacheStats DocCache::GetStats() const {
  DocCacheStats stats;
  stats.budget_bytes = budget_bytes_;
  for (const auto& shard : shards_) {
    MutexLock lock(&shard->mu);
    stats.bytes += shard->bytes;
    stats.entries += shard->map.size();
  }
  stats.hits = hits_.load();
  stats.misses = misses_.load();
  stats.invalidations = invalidations_.load();
  return stats;
}

}  // namespace railyard::storage
