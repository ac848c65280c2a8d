// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>

namespace railyard::bench {

// A pseudo-random permutation of [0, n), computed one position at a time in constant memory, so a
// benchmark can walk a shuffled order of millions of items without holding it (the memory would
// otherwise count in the measured process's peak RSS). A keyed Feistel network over the smallest
// even number of bits that covers n permutes [0, 2^bits); cycle walking (re-applying it until the
// result is below n) restricts that to [0, n). Different seeds give unrelated orders.
//
// Thread safety: immutable after construction; const methods may be called concurrently.
class Shuffle {
 public:
  static constexpr uint64_t kMaxSize = uint64_t{1} << 40;

  // REQUIRES: 1 <= n <= kMaxSize.
  Shuffle(uint64_t n, uint64_t seed);

  uint64_t size() const { return n_; }
  // The element at position `i`. REQUIRES: i < size(). Distinct positions give distinct elements.
  uint64_t At(uint64_t i) const;

 private:
  static constexpr int kRounds = 6;

  // One pass of the Feistel network: a bijection on [0, domain_).
  uint64_t Permute(uint64_t x) const;

  uint64_t n_;
  int half_bits_;
  uint64_t half_mask_;
  uint64_t domain_;
  std::array<uint64_t, kRounds> round_keys_{};
};

}  // namespace railyard::bench
