// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: which page of an on-disk index may hold an id, in about two memory reads.
//
// Why: an index keeps the first id of each of its pages (its fences) in one sorted array; at ten
// million keys that is 49,000 fences. A binary search over them is 16 dependent reads, most of them
// cache misses when lookups are random and several indexes share the cache (perf,
// docs/benchmarks.md: IndexFile::Find was the largest item of kv_bench's read phase). Ids are
// spread over their range (random keys or dense counters alike), so a table of where each of about
// as many equal slices of [first fence, last fence] starts in the array leaves only the one or two
// fences of the id's slice to search. A skewed id set makes some slices hold many fences: lookups
// stay exact and pay a binary search within the slice.
//
// Thread safety: immutable after construction; all methods may be called concurrently.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace railyard::storage {

class FenceLookup {
 public:
  FenceLookup() = default;
  // REQUIRES: `fences` strictly ascending.
  explicit FenceLookup(std::vector<uint64_t> fences);

  // The position of the last fence <= id, or nullopt when id is below the first fence.
  std::optional<size_t> PageFor(uint64_t id) const;

  size_t size() const { return fences_.size(); }
  uint64_t fence(size_t page) const { return fences_[page]; }

 private:
  size_t SliceOf(uint64_t id) const {
    return static_cast<size_t>((id - fences_.front()) >> shift_);
  }

  std::vector<uint64_t> fences_;
  // slice_start_[s]: the first fence in slice s or a later one; one more entry than slices.
  std::vector<uint32_t> slice_start_;
  unsigned shift_ = 0;
};

}  // namespace railyard::storage
