// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>

#include "bench/kv_shuffle.h"

namespace railyard::bench {

// Every kv_bench key maps to a value of this many bytes.
inline constexpr size_t kValueBytes = 96;

// The work of one kv_bench run, as in the docstore seed: n distinct random 64-bit keys written in
// one random order, then all n read back in a different random order. With an absent share s > 0,
// each read is, with probability s, for a key that was never written instead (one of n other
// distinct keys); the rest read back a written key each, so about (1 - s) n distinct written keys.
// Everything follows from (n, seed) and is computed on demand, so each engine's process does
// identical work without holding n keys or either order in memory.
//
// Thread safety: immutable after construction; const methods may be called concurrently.
class Workload {
 public:
  // REQUIRES: 1 <= n <= Shuffle::kMaxSize, 0 <= absent_share <= 1.
  Workload(uint64_t n, uint64_t seed, double absent_share = 0);

  uint64_t n() const { return write_order_.size(); }
  // The key of the i-th write / the i-th read. REQUIRES: i < n(). Over i in [0, n) each returns
  // every key exactly once.
  uint64_t WriteKey(uint64_t i) const { return KeyOf(write_order_.At(i)); }
  // With no absent share, over i in [0, n) ReadKey returns every written key exactly once.
  uint64_t ReadKey(uint64_t i) const {
    return KeyOf(read_order_.At(i) + (ReadAbsent(i) ? n() : 0));
  }
  // Whether the i-th read is for a key that was never written.
  bool ReadAbsent(uint64_t i) const;

 private:
  // A bijective mix of the key's index: distinct indexes give distinct keys.
  uint64_t KeyOf(uint64_t index) const;

  uint64_t key_offset_;
  uint64_t absent_seed_;
  uint64_t absent_below_;  // A read is absent when its mixed index is below this.
  bool all_absent_;
  Shuffle write_order_;
  Shuffle read_order_;
};

// Writes the value stored under `key` to out[0, kValueBytes): pseudo-random bytes from a generator
// seeded by the key, so a read can be checked against it and the values do not compress.
void FillValue(uint64_t key, char* out);

}  // namespace railyard::bench
