// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <random>

namespace railyard::load {

// Picks document ids in [0, keys): uniformly, or zipfian (YCSB's generator: a few hot keys, a long
// tail; theta 0.99 by default), scattered over the id space so hot keys are not adjacent.
//
// Thread safety: none; give each thread its own.
class KeyChooser {
 public:
  enum class Distribution { kUniform, kZipfian };
  KeyChooser(Distribution distribution, uint64_t keys, double theta, uint64_t seed);
  uint64_t Next();

 private:
  double Uniform() { return std::uniform_real_distribution<double>(0, 1)(rng_); }

  Distribution distribution_;
  uint64_t keys_;
  std::mt19937_64 rng_;
  double theta_ = 0.99, alpha_ = 0, zeta_n_ = 0, eta_ = 0;
};

}  // namespace railyard::load
