// SPDX-License-Identifier: Apache-2.0
#include "storage/memtable.h"

#include <algorithm>
#include <bit>

#include "storage/hash.h"

namespace railyard::storage {

MemTable::MemTable(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {
  const size_t slots = std::bit_ceil(2 * capacity_);
  mask_ = slots - 1;
  slots_.resize(slots);
}

size_t MemTable::SlotFor(uint64_t id) const {
  size_t slot = static_cast<size_t>(MixId(id)) & mask_;
  while (slots_[slot].used() && slots_[slot].id != id) slot = (slot + 1) & mask_;
  return slot;
}

void MemTable::Put(uint64_t id, const IndexValue& value) {
  Slot& slot = slots_[SlotFor(id)];
  if (!slot.used()) {
    slot.id = id;
    ++size_;
  }
  slot.value = value;
}

std::optional<IndexValue> MemTable::Get(uint64_t id) const {
  const Slot& slot = slots_[SlotFor(id)];
  if (!slot.used()) return std::nullopt;
  return slot.value;
}

std::vector<IndexEntry> MemTable::SortedEntries() const {
  std::vector<IndexEntry> entries;
  entries.reserve(size_);
  for (const Slot& slot : slots_) {
    if (slot.used()) entries.push_back({slot.id, slot.value});
  }
  std::sort(entries.begin(), entries.end(),
            [](const IndexEntry& a, const IndexEntry& b) { return a.id < b.id; });
  return entries;
}

}  // namespace railyard::storage
