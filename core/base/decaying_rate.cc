#include "core/base/decaying_rate.h"

#include <cmath>

namespace railyard::base {

DecayingRate::DecayingRate(std::chrono::milliseconds tau)
    : tau_s_(std::chrono::duration<double>(tau).count()) {}

double DecayingRate::DecayFactor(Clock::time_point now) const {
  if (last_ == Clock::time_point{} || now <= last_) return 1.0;
  return std::exp(-std::chrono::duration<double>(now - last_).count() / tau_s_);
}

void DecayingRate::Add(Clock::time_point now, double events) {
  base::MutexLock lock(mu_);
  rate_ = rate_ * DecayFactor(now) + events / tau_s_;
  if (now > last_) last_ = now;
}

double DecayingRate::PerSecond(Clock::time_point now) const {
  base::MutexLock lock(mu_);
  return rate_ * DecayFactor(now);
}

}  // namespace railyard::base
