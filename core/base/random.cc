// SPDX-License-Identifier: Apache-2.0
#include "core/base/random.h"

#include <cmath>

namespace railyard::base {

namespace {
constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;  // splitmix64's increment.
}  // namespace

uint64_t Mix64(uint64_t value) {
  value += kGoldenGamma;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31);
}

uint64_t MixSeed(uint64_t seed, uint64_t stream, uint64_t index) {
  return Mix64(seed + kGoldenGamma * (stream * 0x100000001b3ULL + index));
}

uint64_t Rng::Below(uint64_t n) {
  if (n <= 1) return 0;
  // Reject the few values below 2^64 mod n so every residue is equally likely.
  const uint64_t threshold = (0 - n) % n;
  uint64_t r = engine_();
  while (r < threshold) r = engine_();
  return r % n;
}

double Rng::Exponential(double mean) { return -mean * std::log(UniformOpen0()); }

double Rng::StandardNormal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  const double r = std::sqrt(-2.0 * std::log(UniformOpen0()));
  const double theta = 2.0 * M_PI * Uniform();
  spare_ = r * std::sin(theta);
  has_spare_ = true;
  return r * std::cos(theta);
}

}  // namespace railyard::base
