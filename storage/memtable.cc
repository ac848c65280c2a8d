// SPDX-License-Identifier: Apache-2.0
#include "storage/memtable.h"

#include <algorithm>
#include <bit>
#include <memory>
#include <type_traits>

#include "storage/hash.h"
#include "storage/huge_page_memory.h"

namespace railyard::storage {

void MemTable::FreeSlots::operator()(Slot* slots) const {
  static_assert(std::is_trivially_destructible_v<Slot>, "slots are freed without destruction");
  FreeHugePageAdvised(slots, bytes);
}

std::unique_ptr<MemTable::Slot[], MemTable::FreeSlots> MemTable::NewSlots(size_t slots) {
  const size_t bytes = slots * sizeof(Slot);
  std::unique_ptr<Slot[], FreeSlots> memory(
      static_cast<Slot*>(AllocateHugePageAdvised(bytes, alignof(Slot))), FreeSlots{bytes});
  std::uninitialized_value_construct_n(memory.get(), slots);
  return memory;
}

MemTable::MemTable(size_t capacity)
    : capacity_(std::max<size_t>(1, capacity)),
      mask_(std::bit_ceil(2 * capacity_) - 1),
      slots_(NewSlots(mask_ + 1)) {}

size_t MemTable::SlotFor(uint64_t id) const {
  size_t slot = HomeSlot(id);
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

MemTable::SortedCopy MemTable::SortedEntries() const {
  SortedCopy entries;
  entries.reserve(size_);
  for (size_t i = 0; i <= mask_; ++i) {
    if (slots_[i].used()) entries.push_back({slots_[i].id, slots_[i].value});
  }
  std::sort(entries.begin(), entries.end(),
            [](const IndexEntry& a, const IndexEntry& b) { return a.id < b.id; });
  return entries;
}

}  // namespace railyard::storage
