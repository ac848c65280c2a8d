#include "storage/memtable.h"

#include <algorithm>
#include <bit>

#include "storage/hash.h"

namespace railyard::storage {

MemTable::MemTable(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {
  const size_t slots = std::bit_ceil(2 * capacity_);
  mask_ = slots - 1;
  ids_.resize(slots);
  values_.resize(slots);
  used_.resize(slots, 0);
}

size_t MemTable::SlotFor(uint64_t id) const {
  size_t slot = static_cast<size_t>(MixId(id)) & mask_;
  while (used_[slot] && ids_[slot] != id) slot = (slot + 1) & mask_;
  return slot;
}

void MemTable::Put(uint64_t id, const IndexValue& value) {
  const size_t slot = SlotFor(id);
  if (!used_[slot]) {
    used_[slot] = 1;
    ids_[slot] = id;
    ++size_;
  }
  values_[slot] = value;
}

std::optional<IndexValue> MemTable::Get(uint64_t id) const {
  const size_t slot = SlotFor(id);
  if (!used_[slot]) return std::nullopt;
  return values_[slot];
}

std::vector<IndexEntry> MemTable::SortedEntries() const {
  std::vector<IndexEntry> entries;
  entries.reserve(size_);
  for (size_t slot = 0; slot <= mask_; ++slot) {
    if (used_[slot]) entries.push_back({ids_[slot], values_[slot]});
  }
  std::sort(entries.begin(), entries.end(),
            [](const IndexEntry& a, const IndexEntry& b) { return a.id < b.id; });
  return entries;
}

}  // namespace railyard::storage
