// SPDX-License-Identifier: Apache-2.0
#include "core/balance/aimd_limiter.h"

#include <algorithm>
#include <cmath>

namespace railyard::balance {
namespace {

// Smoothing of the two latency averages, per sample: about the last 5 and the last 100.
constexpr double kShortAlpha = 0.2;
constexpr double kLongAlpha = 0.01;

}  // namespace

AimdLimiter::AimdLimiter(Options options) : options_(options) {
  options_.min_limit = std::max<uint32_t>(1, options_.min_limit);
  options_.max_limit = std::max(options_.min_limit, options_.max_limit);
  limit_ = std::clamp<double>(options_.initial_limit, options_.min_limit, options_.max_limit);
}

uint32_t AimdLimiter::limit() const { return static_cast<uint32_t>(std::floor(limit_)); }

bool AimdLimiter::TryAcquire() {
  if (in_flight_ >= limit()) return false;
  ++in_flight_;
  return true;
}

void AimdLimiter::Drop() {
  ++drops_;
  limit_ = std::max<double>(options_.min_limit, limit_ * options_.backoff);
}

void AimdLimiter::Release(Result result, Duration latency) {
  const uint32_t in_flight = in_flight_;
  if (in_flight_ > 0) --in_flight_;
  switch (result) {
    case Result::kTimeout:
    case Result::kRejected:
      Drop();
      return;
    case Result::kError:
    case Result::kIgnored:
      return;
    case Result::kSuccess:
      break;
  }
  const double sample = static_cast<double>(std::max<int64_t>(0, latency.count()));
  if (samples_ == 0) {
    short_latency_ = long_latency_ = sample;
  } else {
    short_latency_ += kShortAlpha * (sample - short_latency_);
    long_latency_ += kLongAlpha * (sample - long_latency_);
  }
  ++samples_;
  if (samples_ > options_.warmup_samples &&
      short_latency_ > options_.latency_tolerance * long_latency_) {
    Drop();
    return;
  }
  // Grow only while the limit is actually in use; an idle limit proves nothing.
  if (2.0 * in_flight >= limit_) {
    limit_ = std::min<double>(options_.max_limit, limit_ + 1.0);
  }
}

}  // namespace railyard::balance
