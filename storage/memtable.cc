// SPDX-License-Identifier: Apache-2.0
#include "storage/memtable.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

#include "storage/hash.h"

namespace railyard::storage {

namespace {

constexpr size_t kHugePageBytes = size_t{2} << 20;

}  // namespace

void MemTable::FreeSlots::operator()(Slot* slots) const {
  static_assert(std::is_trivially_destructible_v<Slot>, "slots are freed without destruction");
  std::free(slots);
}

MemTable::MemTable(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {
  const size_t slots = std::bit_ceil(2 * capacity_);
  mask_ = slots - 1;
  // Huge-page aligned so that the kernel can back it with huge pages; small tables keep the
  // default alignment (a huge page for a test's 16 slots would be waste).
  const size_t bytes = slots * sizeof(Slot);
  const bool huge = bytes >= kHugePageBytes;
  const size_t alignment = huge ? kHugePageBytes : alignof(Slot);
  const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void* memory = std::aligned_alloc(alignment, rounded);
  if (memory == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  if (huge) madvise(memory, rounded, MADV_HUGEPAGE);  // Advice only: a refusal changes nothing.
#endif
  slots_.reset(static_cast<Slot*>(memory));
  std::uninitialized_value_construct_n(slots_.get(), slots);
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
  for (size_t i = 0; i <= mask_; ++i) {
    if (slots_[i].used()) entries.push_back({slots_[i].id, slots_[i].value});
  }
  std::sort(entries.begin(), entries.end(),
            [](const IndexEntry& a, const IndexEntry& b) { return a.id < b.id; });
  return entries;
}

}  // namespace railyard::storage
