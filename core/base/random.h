// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <random>

namespace railyard::base {

// Mixes a value into a well-spread 64-bit hash (splitmix64's finaliser); for deriving seeds.
uint64_t Mix64(uint64_t value);

// Mixes a seed and a stream label into an independent seed, so every component of a run gets its
// own stream: adding a client does not shift the numbers any backend draws. Equal to
// Mix64(seed + golden ratio * (stream * FNV prime + index)).
uint64_t MixSeed(uint64_t seed, uint64_t stream, uint64_t index = 0);

// A seeded stream with the same output on every platform and standard library, so a policy or a
// simulation repeats exactly for a seed: std::mt19937_64's output is fixed by the standard, and
// the distributions are our own (the std:: ones are implementation-defined).
//
// Thread safety: none.
class Rng {
 public:
  explicit Rng(uint64_t seed = 1) : engine_(seed) {}

  uint64_t Next() { return engine_(); }
  // Uniform in [0, 1), 53 bits.
  double Uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1]: safe to take the logarithm of.
  double UniformOpen0() { return 1.0 - Uniform(); }
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform(); }
  // Uniform integer in [0, n), unbiased; 0 when n <= 1.
  uint64_t Below(uint64_t n);
  bool Bernoulli(double p) { return Uniform() < p; }
  double Exponential(double mean);
  double StandardNormal();  // Box-Muller; the spare value is kept for the next call.

 private:
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0;
};

}  // namespace railyard::base
