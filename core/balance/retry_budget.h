// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>

#include "core/balance/policy.h"

namespace railyard::balance {

// Retries across a whole client are bounded to a fraction of its recent requests, so that during
// an outage retries cannot multiply the load on the backends that are left. (The per-request bound
// is the client's max_retries.)
//
// Thread safety: none; the caller serialises all calls.
class RetryBudget {
 public:
  struct Options {
    double ratio = 0.2;  // Retries allowed per recent request.
    Duration window = std::chrono::seconds(10);
    uint32_t min_retries_per_window = 10;  // So a client at a trickle can still retry.
  };
  RetryBudget() : RetryBudget(Options{}) {}
  explicit RetryBudget(Options options);

  void RecordRequest(Time now);  // Each first attempt.
  bool TryRetry(Time now);       // True (and counted) if a retry may go out now.

  uint64_t retries_refused() const;
  double available(Time now) const;  // Retries still allowed in the window.

 private:
  // Implementation detail of the balance helper; may change.
  void Advance(Time now);
  Options options_;
  Time window_start_{0};
  double previous_requests_ = 0, current_requests_ = 0;
  double previous_retries_ = 0, current_retries_ = 0;
  uint64_t refused_ = 0;
};

}  // namespace railyard::balance
