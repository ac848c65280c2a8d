// SPDX-License-Identifier: Apache-2.0
#include "storage/huge_page_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace railyard::storage {
namespace {

bool IsLarge(size_t bytes) { return bytes >= kHugePageBytes; }

size_t RoundUp(size_t bytes, size_t alignment) {
  return (std::max<size_t>(bytes, 1) + alignment - 1) / alignment * alignment;
}

// A mapping of `bytes` (a multiple of kHugePageBytes) that starts on a huge page boundary: map
// one huge page more than asked, then give back the unaligned head and the tail.
void* MapAligned(size_t bytes) {
  const size_t reserved = bytes + kHugePageBytes;
  void* mapped =
      ::mmap(nullptr, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) throw std::bad_alloc();
  const auto begin = reinterpret_cast<uintptr_t>(mapped);
  const uintptr_t aligned = (begin + kHugePageBytes - 1) & ~(uintptr_t{kHugePageBytes} - 1);
  const size_t head = aligned - begin;
  const size_t tail = reserved - head - bytes;
  if (head > 0) ::munmap(mapped, head);
  if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + bytes), tail);
  return reinterpret_cast<void*>(aligned);
}

}  // namespace

void* AllocateHugePageAdvised(size_t bytes, size_t alignment) {
  if (alignment > kHugePageBytes) throw std::bad_alloc();  // Beyond the contract: see the header.
  if (!IsLarge(bytes)) {
    void* memory = std::aligned_alloc(alignment, RoundUp(bytes, alignment));
    if (memory == nullptr) throw std::bad_alloc();
    return memory;
  }
  const size_t mapped = RoundUp(bytes, kHugePageBytes);
  void* memory = MapAligned(mapped);
#ifdef MADV_HUGEPAGE
  ::madvise(memory, mapped, MADV_HUGEPAGE);  // Advice only: a refusal changes nothing.
#endif
  return memory;
}

void FreeHugePageAdvised(void* memory, size_t bytes) noexcept {
  if (memory == nullptr) return;
  if (!IsLarge(bytes)) {
    std::free(memory);
    return;
  }
  ::munmap(memory, RoundUp(bytes, kHugePageBytes));
}

}  // namespace railyard::storage
