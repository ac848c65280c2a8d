// SPDX-License-Identifier: Apache-2.0
#include "core/base/decaying_count.h"

#include <cmath>

namespace railyard::base {

double DecayFactor(std::chrono::nanoseconds elapsed, std::chrono::nanoseconds half_life) {
  if (elapsed <= std::chrono::nanoseconds::zero()) return 1.0;
  if (half_life <= std::chrono::nanoseconds::zero()) return 0.0;
  return std::exp2(-static_cast<double>(elapsed.count()) / static_cast<double>(half_life.count()));
}

void DecayingCount::Add(double amount, Time now) {
  value_ = Value(now) + amount;
  if (now > last_) last_ = now;
}

double DecayingCount::Value(Time now) const {
  return value_ * DecayFactor(now - last_, half_life_);
}

}  // namespace railyard::base
