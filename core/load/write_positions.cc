// SPDX-License-Identifier: Apache-2.0
#include "core/load/write_positions.h"

#include "core/base/random.h"

namespace railyard::load {

namespace {
size_t PowerOfTwoAtLeast(size_t n) {
  size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}
}  // namespace

WritePositions::WritePositions(size_t entries)
    : mask_(PowerOfTwoAtLeast(entries == 0 ? 1 : entries) - 1),
      positions_(new std::atomic<uint64_t>[mask_ + 1]) {
  for (size_t i = 0; i <= mask_; ++i) positions_[i].store(0, std::memory_order_relaxed);
}

// Hashed, so that the ids of one writer (spaced evenly) do not all land in a few entries.
size_t WritePositions::IndexOf(uint64_t id) const { return base::Mix64(id) & mask_; }

void WritePositions::Acknowledged(uint64_t id, uint64_t position) {
  std::atomic<uint64_t>& entry = positions_[IndexOf(id)];
  uint64_t seen = entry.load(std::memory_order_relaxed);
  while (seen < position && !entry.compare_exchange_weak(seen, position)) {
  }
}

uint64_t WritePositions::For(uint64_t id) const { return positions_[IndexOf(id)].load(); }

}  // namespace railyard::load
