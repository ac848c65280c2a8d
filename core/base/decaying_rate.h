// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>

#include "core/base/decaying_count.h"
#include "core/base/mutex.h"

namespace railyard::base {

// An event rate (events per second) that decays exponentially with time constant `tau`, so it
// follows load changes within a few tau without keeping a window of samples: a DecayingCount
// with half life tau * ln 2 (the same decay), divided by tau, on the steady clock, behind a lock.
//
// Thread safety: all methods may be called concurrently.
class DecayingRate {
 public:
  using Clock = std::chrono::steady_clock;
  explicit DecayingRate(std::chrono::milliseconds tau = std::chrono::seconds(1));

  void Add(Clock::time_point now, double events = 1);
  double PerSecond(Clock::time_point now) const;

 private:
  const double tau_s_;
  mutable base::Mutex mu_;
  DecayingCount events_ RAILYARD_GUARDED_BY(mu_);
};

}  // namespace railyard::base
