#include "core/balance/decay.h"

#include <cmath>

namespace railyard::balance {

double DecayFactor(Duration elapsed, Duration half_life) {
  if (elapsed <= Duration::zero()) return 1.0;
  if (half_life <= Duration::zero()) return 0.0;
  return std::exp2(-static_cast<double>(elapsed.count()) / static_cast<double>(half_life.count()));
}

void DecayingCount::Add(double amount, Time now) {
  value_ = Value(now) + amount;
  if (now > last_) last_ = now;
}

double DecayingCount::Value(Time now) const {
  return value_ * DecayFactor(now - last_, half_life_);
}

}  // namespace railyard::balance
