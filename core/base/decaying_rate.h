#pragma once

#include <chrono>

#include "core/base/mutex.h"

namespace railyard::base {

// An event rate (events per second) that decays exponentially with time constant `tau`, so it
// follows load changes within a few tau without keeping a window of samples.
//
// Thread safety: all methods may be called concurrently.
class DecayingRate {
 public:
  using Clock = std::chrono::steady_clock;
  explicit DecayingRate(std::chrono::milliseconds tau = std::chrono::seconds(1));

  void Add(Clock::time_point now, double events = 1);
  double PerSecond(Clock::time_point now) const;

 private:
  double DecayFactor(Clock::time_point now) const REQUIRES(mu_);

  const double tau_s_;
  mutable base::Mutex mu_;
  double rate_ GUARDED_BY(mu_) = 0;  // Events per second as of last_.
  Clock::time_point last_ GUARDED_BY(mu_){};
};

}  // namespace railyard::base
