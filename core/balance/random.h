#pragma once

#include <cstdint>

namespace railyard::balance {

// A small, fast generator with the same output on every platform and standard library (the
// std:: distributions are implementation-defined), so a policy or a simulation repeats exactly
// for a seed. xoshiro256** seeded through splitmix64.
//
// Thread safety: none.
class Rng {
 public:
  explicit Rng(uint64_t seed);

  uint64_t Next();
  double Uniform();            // In [0, 1).
  uint64_t Below(uint64_t n);  // In [0, n); n > 0.

 private:
  uint64_t state_[4];
};

// Mixes a value into a well-spread 64-bit hash (splitmix64's finaliser); for deriving seeds.
uint64_t Mix64(uint64_t value);

}  // namespace railyard::balance
