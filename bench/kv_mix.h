// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

namespace railyard::bench {

// The splitmix64 finalizer: a bijection on uint64_t (xor-shifts and odd multipliers are all
// invertible) that scatters nearby inputs across the whole range. kv_bench builds its keys, orders
// and values from it.
inline uint64_t Mix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The splitmix64 generator: advances `state` and returns the next pseudo-random word.
inline uint64_t SplitMix64(uint64_t& state) {
  state += 0x9e3779b97f4a7c15ull;
  return Mix64(state);
}

}  // namespace railyard::bench
