// SPDX-License-Identifier: Apache-2.0
#include "bench/kv_shuffle.h"

#include <bit>
#include <cstdio>
#include <cstdlib>

#include "bench/kv_mix.h"

namespace railyard::bench {

Shuffle::Shuffle(uint64_t n, uint64_t seed) : n_(n) {
  if (n < 1 || n > kMaxSize) {
    std::fprintf(stderr, "Shuffle: size %llu outside [1, %llu]\n",
                 static_cast<unsigned long long>(n), static_cast<unsigned long long>(kMaxSize));
    std::abort();
  }
  // Bits needed for the largest element, at least 2 and rounded up to even so that both halves
  // of the Feistel network have the same width; the domain is then below 4n.
  int bits = std::bit_width(n - 1);
  if (bits < 2) bits = 2;
  bits += bits % 2;
  half_bits_ = bits / 2;
  half_mask_ = (uint64_t{1} << half_bits_) - 1;
  domain_ = uint64_t{1} << bits;
  uint64_t state = seed;
  for (uint64_t& key : round_keys_) key = SplitMix64(state);
}

uint64_t Shuffle::Permute(uint64_t x) const {
  uint64_t left = x >> half_bits_;
  uint64_t right = x & half_mask_;
  for (const uint64_t key : round_keys_) {
    const uint64_t next_right = left ^ (Mix64(right ^ key) & half_mask_);
    left = right;
    right = next_right;
  }
  return (left << half_bits_) | right;
}

uint64_t Shuffle::At(uint64_t i) const {
  // Permute is a bijection on [0, domain_), so the cycle through i (< n) returns below n within
  // domain_ steps; with domain_ < 4n it takes fewer than four on average.
  uint64_t x = i;
  for (uint64_t step = 0; step < domain_; ++step) {
    x = Permute(x);
    if (x < n_) return x;
  }
  std::fprintf(stderr, "Shuffle: no element for position %llu (cannot happen)\n",
               static_cast<unsigned long long>(i));
  std::abort();
}

}  // namespace railyard::bench
