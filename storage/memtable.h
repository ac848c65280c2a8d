// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: the in-memory index, id -> value, for up to a fixed number of ids.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "storage/hash.h"
#include "storage/huge_page_memory.h"
#include "storage/index_entry.h"

namespace railyard::storage {

// Open addressing with linear probing at a load factor of at most one half: point lookups and
// updates in a cache miss or two, no allocation after construction. Sorted only once, when it is
// written to disk. Each slot holds its id and value together (an empty slot has kind 0), so a
// probe touches one cache line rather than one per array (profiled: the probe was 10% of the
// seed's benchmark, nearly all of it cache misses). The slots sit in huge-page-advised memory
// (storage/huge_page_memory.h): a random probe into a full-size table's tens of megabytes costs
// one cache miss rather than a cache miss plus a page-table walk.
//
// Thread safety: none; the store guards it with a reader-writer lock.
class MemTable {
 public:
  explicit MemTable(size_t capacity);

  // REQUIRES: !full() or `id` already present.
  void Put(uint64_t id, const IndexValue& value);
  std::optional<IndexValue> Get(uint64_t id) const;
  // Starts loading the slot where Get(id) looks first, without waiting for it (see
  // IndexFile::Prefetch).
  void Prefetch(uint64_t id) const { __builtin_prefetch(&slots_[HomeSlot(id)]); }

  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool full() const { return size_ >= capacity_; }
  // Its own mapping when large: freed, it leaves the process (storage/huge_page_memory.h).
  using SortedCopy = std::vector<IndexEntry, HugePageAllocator<IndexEntry>>;
  SortedCopy SortedEntries() const;
  // Where the slots live, for tests and diagnostics (e.g. finding their mapping in smaps).
  const void* slot_memory() const { return slots_.get(); }

 private:
  struct Slot {
    uint64_t id = 0;
    IndexValue value{static_cast<EntryKind>(0), {}};  // Kind 0: the slot is empty.
    bool used() const { return static_cast<uint8_t>(value.kind) != 0; }
  };
  struct FreeSlots {
    size_t bytes = 0;  // As allocated.
    void operator()(Slot* slots) const;
  };
  static std::unique_ptr<Slot[], FreeSlots> NewSlots(size_t slots);
  // Where the probe for `id` starts.
  size_t HomeSlot(uint64_t id) const { return static_cast<size_t>(MixId(id)) & mask_; }
  size_t SlotFor(uint64_t id) const;

  size_t capacity_;
  size_t mask_;
  size_t size_ = 0;
  std::unique_ptr<Slot[], FreeSlots> slots_;
};

}  // namespace railyard::storage
