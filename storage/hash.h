// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: the id mixer behind the memtable and the Bloom filters.

#include <cstdint>

namespace railyard::storage {

// A full-avalanche 64-bit mix (the splitmix64 finaliser): ids are often sequential or clustered.
inline uint64_t MixId(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

}  // namespace railyard::storage
