// SPDX-License-Identifier: Apache-2.0
#include "core/load/key_chooser.h"

#include <algorithm>
#include <cmath>

namespace railyard::load {

namespace {
double Zeta(uint64_t n, double theta) {
  double sum = 0;
  for (uint64_t i = 1; i <= n; ++i) sum += 1.0 / std::pow(static_cast<double>(i), theta);
  return sum;
}

// Spreads ranks over the id space (an invertible odd-multiplier mix, reduced mod keys).
uint64_t Scatter(uint64_t rank, uint64_t keys) { return (rank * 0x9e3779b97f4a7c15ull) % keys; }
}  // namespace

KeyChooser::KeyChooser(Distribution distribution, uint64_t keys, double theta, uint64_t seed)
    : distribution_(distribution), keys_(std::max<uint64_t>(1, keys)), rng_(seed), theta_(theta) {
  if (distribution_ == Distribution::kZipfian) {
    zeta_n_ = Zeta(keys_, theta_);
    const double zeta2 = Zeta(2, theta_);
    alpha_ = 1.0 / (1.0 - theta_);
    eta_ = (1 - std::pow(2.0 / static_cast<double>(keys_), 1 - theta_)) / (1 - zeta2 / zeta_n_);
  }
}

uint64_t KeyChooser::Next() {
  if (distribution_ == Distribution::kUniform) {
    return std::uniform_int_distribution<uint64_t>(0, keys_ - 1)(rng_);
  }
  const double u = Uniform();
  const double uz = u * zeta_n_;
  uint64_t rank;
  if (uz < 1.0) {
    rank = 0;
  } else if (uz < 1.0 + std::pow(0.5, theta_)) {
    rank = 1;
  } else {
    rank =
        static_cast<uint64_t>(static_cast<double>(keys_) * std::pow(eta_ * u - eta_ + 1, alpha_));
  }
  return Scatter(std::min(rank, keys_ - 1), keys_);
}

}  // namespace railyard::load
