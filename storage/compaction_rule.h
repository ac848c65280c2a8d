// SPDX-License-Identifier: Apache-2.0
#pragma once

// The seed's compaction rule as a pure function, so the engine and anything that predicts it
// (the console shows the next compaction set) apply the same rule. Header-only and standard
// library only: the console includes this one header of storage/ without linking the engine
// (scripts/check_includes.py allows exactly this header to ui/).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace railyard::storage {

// How many on-disk indexes a flush of an in-memory index of `memtable_entries` entries merges:
// starting from the memtable, each next-older index is merged while the new index is at least its
// size (sizes add up as if ids were distinct: an upper bound). `index_entries` lists the on-disk
// indexes' entry counts newest first; the result counts from its front.
inline size_t FlushMergeCount(uint64_t memtable_entries,
                              const std::vector<uint64_t>& index_entries) {
  uint64_t size = memtable_entries;
  size_t count = 0;
  for (uint64_t entries : index_entries) {
    if (size < entries) break;
    size += entries;
    ++count;
  }
  return count;
}

}  // namespace railyard::storage
