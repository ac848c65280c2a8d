// SPDX-License-Identifier: Apache-2.0
#include "storage/huge_page_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <new>

namespace railyard::storage {

void* AllocateHugePageAdvised(size_t bytes, size_t alignment) {
  // Small tables keep their own alignment: a huge page for a test's 16 slots would be waste.
  const bool huge = bytes >= kHugePageBytes;
  if (huge) alignment = std::max(alignment, kHugePageBytes);
  const size_t rounded = (std::max<size_t>(bytes, 1) + alignment - 1) / alignment * alignment;
  void* memory = std::aligned_alloc(alignment, rounded);
  if (memory == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  if (huge) ::madvise(memory, rounded, MADV_HUGEPAGE);  // Advice only: a refusal changes nothing.
#endif
  return memory;
}

}  // namespace railyard::storage
