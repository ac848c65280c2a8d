// SPDX-License-Identifier: Apache-2.0
#include "bench/kv_workload.h"

#include <cmath>

#include "bench/kv_mix.h"

namespace railyard::bench {
namespace {

// Independent streams derived from the one --seed: the keys, the write order, the read order.
enum Stream : uint64_t { kKeys = 1, kWriteOrder = 2, kReadOrder = 3, kAbsentReads = 4 };

uint64_t StreamSeed(uint64_t seed, Stream stream) { return Mix64(Mix64(seed) ^ stream); }

// Keeps the value generator's stream apart from Mix64(key) itself.
constexpr uint64_t kValueSalt = 0x6a09e667f3bcc909ull;

}  // namespace

Workload::Workload(uint64_t n, uint64_t seed, double absent_share)
    : key_offset_(StreamSeed(seed, kKeys)),
      absent_seed_(StreamSeed(seed, kAbsentReads)),
      absent_below_(absent_share <= 0 ? 0 : static_cast<uint64_t>(std::ldexp(absent_share, 64))),
      all_absent_(absent_share >= 1),
      write_order_(n, StreamSeed(seed, kWriteOrder)),
      read_order_(n, StreamSeed(seed, kReadOrder)) {}

bool Workload::ReadAbsent(uint64_t i) const {
  return all_absent_ || Mix64(i + absent_seed_) < absent_below_;
}

// Adding a constant modulo 2^64 and Mix64 are both bijections: keys of indexes in [n, 2n), read
// as absent keys, are never among the written ones (indexes in [0, n)).
uint64_t Workload::KeyOf(uint64_t index) const { return Mix64(index + key_offset_); }

static_assert(kValueBytes % 8 == 0, "FillValue writes whole 64-bit words");

void FillValue(uint64_t key, char* out) {
  uint64_t state = key ^ kValueSalt;
  for (size_t offset = 0; offset < kValueBytes; offset += 8) {
    uint64_t word = SplitMix64(state);
    // Little-endian whatever the host, so a value is the same bytes on every machine.
    for (size_t b = 0; b < 8; ++b) {
      out[offset + b] = static_cast<char>(word & 0xff);
      word >>= 8;
    }
  }
}

}  // namespace railyard::bench
