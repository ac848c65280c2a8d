// SPDX-License-Identifier: Apache-2.0
#include "core/balance/retry_budget.h"

#include <algorithm>

namespace railyard::balance {

RetryBudget::RetryBudget(Options options) : options_(options) {
  if (options_.window <= Duration::zero()) options_.window = std::chrono::seconds(1);
  if (options_.ratio < 0) options_.ratio = 0;
}

// Two fixed windows, the previous one weighted by how much of it still overlaps a sliding window
// ending now: cheap, and smooth enough that the budget does not reset all at once.
void RetryBudget::Advance(Time now) {
  if (now < window_start_ + options_.window) return;
  const Duration elapsed = now - window_start_;
  if (elapsed < 2 * options_.window) {
    previous_requests_ = current_requests_;
    previous_retries_ = current_retries_;
  } else {
    previous_requests_ = previous_retries_ = 0;
  }
  current_requests_ = current_retries_ = 0;
  window_start_ = now - elapsed % options_.window;
}

void RetryBudget::RecordRequest(Time now) {
  Advance(now);
  current_requests_ += 1;
}

bool RetryBudget::TryRetry(Time now) {
  if (available(now) >= 1.0) {
    Advance(now);
    current_retries_ += 1;
    return true;
  }
  ++refused_;
  return false;
}

uint64_t RetryBudget::retries_refused() const { return refused_; }

double RetryBudget::available(Time now) const {
  RetryBudget copy = *this;
  copy.Advance(now);
  const double overlap = 1.0 - std::clamp(static_cast<double>((now - copy.window_start_).count()) /
                                              static_cast<double>(options_.window.count()),
                                          0.0, 1.0);
  const double requests = copy.current_requests_ + overlap * copy.previous_requests_;
  const double retries = copy.current_retries_ + overlap * copy.previous_retries_;
  const double allowed =
      std::max<double>(options_.min_retries_per_window, options_.ratio * requests);
  return std::max(0.0, allowed - retries);
}

}  // namespace railyard::balance
