// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: memory for the large tables that lookups probe at random (the memtable's
// slots, index copies), in pages the kernel may back with transparent huge pages.
//
// Why: a random probe into tens or hundreds of megabytes of 4 KiB pages misses the TLB as well as
// the cache, and on the seed's benchmark the page-table walk was a large part of a lookup
// (kv_bench: reads 1.5x faster with the memtable so advised; docs/benchmarks.md). MADV_HUGEPAGE is
// advice: where huge pages are off ("never") or unavailable the memory works as plain pages.
//
// Thread safety: free functions, no shared state.

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace railyard::storage {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

struct FreeHugePageMemory {
  void operator()(void* memory) const { std::free(memory); }
};

// `bytes` of uninitialised memory aligned to `alignment` (a power of two); from kHugePageBytes
// up, aligned to a huge page and advised MADV_HUGEPAGE instead. Throws std::bad_alloc.
void* AllocateHugePageAdvised(size_t bytes, size_t alignment);

}  // namespace railyard::storage
