// SPDX-License-Identifier: Apache-2.0
#include "storage/fence_lookup.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace railyard::storage {

FenceLookup::FenceLookup(std::vector<uint64_t> fences) : fences_(std::move(fences)) {
  if (fences_.empty()) return;
  // About one slice per fence (a power of two, so a slice is a shift away).
  const uint64_t slices = std::bit_ceil(uint64_t{fences_.size()});
  const uint64_t span = fences_.back() - fences_.front();
  while ((span >> shift_) >= slices) ++shift_;
  slice_start_.resize(static_cast<size_t>(slices) + 1);
  size_t fence = 0;
  for (size_t slice = 0; slice <= slices; ++slice) {
    while (fence < fences_.size() && SliceOf(fences_[fence]) < slice) ++fence;
    slice_start_[slice] = static_cast<uint32_t>(fence);
  }
}

std::optional<size_t> FenceLookup::PageFor(uint64_t id) const {
  if (fences_.empty() || id < fences_.front()) return std::nullopt;
  const size_t slice = SliceOf(id);
  if (slice >= slice_start_.size() - 1) return fences_.size() - 1;  // Past the last fence's slice.
  // Every fence before the slice's first is below the slice, so at or below id.
  const auto begin = fences_.begin() + slice_start_[slice];
  const auto end = fences_.begin() + slice_start_[slice + 1];
  return static_cast<size_t>(std::upper_bound(begin, end, id) - fences_.begin()) - 1;
}

}  // namespace railyard::storage
