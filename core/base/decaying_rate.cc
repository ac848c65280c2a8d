// SPDX-License-Identifier: Apache-2.0
#include "core/base/decaying_rate.h"

#include <cmath>

namespace railyard::base {
// e^(-t / tau) = 2^(-t / (tau ln 2)).
DecayingRate::DecayingRate(std::chrono::milliseconds tau)
    : tau_s_(std::chrono::duration<double>(tau).count()),
      events_(std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::duration<double, std::milli>(static_cast<double>(tau.count()) *
                                                    std::log(2.0)))) {}

void DecayingRate::Add(Clock::time_point now, double events) {
  base::MutexLock lock(mu_);
  events_.Add(events, DecayingCount::SteadyTime(now));
}

double DecayingRate::PerSecond(Clock::time_point now) const {
  base::MutexLock lock(mu_);
  return events_.Value(DecayingCount::SteadyTime(now)) / tau_s_;
}

}  // namespace railyard::base
