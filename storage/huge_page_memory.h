// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: memory for the engine's large tables (the memtable's slots, the index
// copies, the memtable's sorted copy): mapped from the kernel and given back to it whole, in
// pages the kernel may back with transparent huge pages.
//
// Why huge pages: a random probe into tens or hundreds of megabytes of 4 KiB pages misses the TLB
// as well as the cache, and on the seed's benchmark the page-table walk was a large part of a
// lookup (kv_bench: reads 1.5x faster with the memtable so advised; docs/benchmarks.md).
// MADV_HUGEPAGE is advice: where huge pages are off ("never") the memory works as plain pages.
//
// Why not malloc: glibc raises its mmap threshold to the size of each mapped block it frees (up to
// 32 MiB), so after the first flush freed its 24 MiB sorted copy, a 22 MiB index copy came from an
// arena instead of its own mapping, and stayed in the process after the index was compacted away
// (kv_bench at 10M: 31 MiB of anonymous memory that no table held; docs/benchmarks.md, "Where the
// memory goes at 10M"). Mapped directly, a table's memory leaves with the table.
//
// Thread safety: free functions and stateless allocators, no shared state.

#include <cstddef>
#include <new>

namespace railyard::storage {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// `bytes` of memory aligned to `alignment` (a power of two, at most kHugePageBytes). From
// kHugePageBytes up: its own mapping, aligned to a huge page and advised MADV_HUGEPAGE; below that,
// from malloc (a huge page for a test's 16 slots would be waste). Uninitialised below
// kHugePageBytes, zeroed from it up. Throws std::bad_alloc.
void* AllocateHugePageAdvised(size_t bytes, size_t alignment);

// Gives back what AllocateHugePageAdvised(bytes, ...) returned; `bytes` must be the same.
// Null is ignored.
void FreeHugePageAdvised(void* memory, size_t bytes) noexcept;

// A deleter for std::unique_ptr that knows the size it was allocated with.
struct FreeHugePageMemory {
  size_t bytes = 0;  // As given to AllocateHugePageAdvised.
  void operator()(void* memory) const noexcept { FreeHugePageAdvised(memory, bytes); }
};

// A standard allocator on the functions above, for containers that grow to tens of megabytes.
template <typename T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}  // NOLINT: allocators convert.

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(AllocateHugePageAdvised(n * sizeof(T), alignof(T)));
  }
  void deallocate(T* memory, size_t n) noexcept { FreeHugePageAdvised(memory, n * sizeof(T)); }

  template <typename U>
  friend bool operator==(const HugePageAllocator&, const HugePageAllocator<U>&) {
    return true;
  }
};

}  // namespace railyard::storage
