// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <map>

#include "core/balance/policy.h"
#include "core/base/decaying_count.h"

namespace railyard::balance {

// What one client has seen of each backend's answers: a moving average of attempt latency
// (timeouts count with the time they took) and a decaying count of errors. Only what the client
// observes anyway; nothing extra from the servers.
//
// A backend that stops being chosen stops producing samples, so its penalty fades: the excess of
// its average over the all-backends average halves every `fade_half_life`, and it is tried again
// (the way a hung or slowed-down backend that recovered gets its traffic back).
//
// Thread safety: none.
class ObservedCost {
 public:
  ObservedCost(Duration fade_half_life, Duration error_half_life);

  void Record(const Outcome& outcome);

  // Expected latency of the next attempt in ns, for comparing backends; a backend never seen
  // costs the all-backends average (0 before any sample).
  double Latency(BackendId backend, Time now) const;
  double RecentErrors(BackendId backend, Time now) const;

 private:
  struct PerBackend {
    double latency_ns = 0;
    Time last{0};
    base::DecayingCount errors;
  };

  Duration fade_half_life_;
  Duration error_half_life_;
  double mean_latency_ns_ = 0;
  bool have_mean_ = false;
  std::map<BackendId, PerBackend> backends_;
};

}  // namespace railyard::balance
