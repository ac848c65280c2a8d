// SPDX-License-Identifier: Apache-2.0
#include "core/balance/observed_cost.h"

namespace railyard::balance {
namespace {

// Weight of a new sample in a moving average: recent enough to follow a slowdown within a few
// answers, smooth enough that one expensive request does not move a backend's rank for long.
constexpr double kSampleWeight = 0.2;
// The all-backends average moves slower: it is the yardstick the penalties fade towards.
constexpr double kMeanSampleWeight = 0.02;

}  // namespace

ObservedCost::ObservedCost(Duration fade_half_life, Duration error_half_life)
    : fade_half_life_(fade_half_life), error_half_life_(error_half_life) {}

void ObservedCost::Record(const Outcome& outcome) {
  auto it = backends_
                .try_emplace(outcome.backend,
                             PerBackend{0, Time{0}, base::DecayingCount(error_half_life_)})
                .first;
  PerBackend& b = it->second;
  switch (outcome.result) {
    case Result::kError:
    case Result::kRejected:
      b.errors.Add(1.0, outcome.now);
      return;
    case Result::kIgnored:
      return;
    case Result::kTimeout:
      b.errors.Add(1.0, outcome.now);
      break;  // And its latency counts: the time it cost.
    case Result::kSuccess:
      break;
  }
  const double sample = static_cast<double>(outcome.latency.count());
  const double current = b.last == Time{0} ? sample : Latency(outcome.backend, outcome.now);
  b.latency_ns = current + kSampleWeight * (sample - current);
  b.last = outcome.now;
  if (!have_mean_) {
    mean_latency_ns_ = sample;
    have_mean_ = true;
  } else {
    mean_latency_ns_ += kMeanSampleWeight * (sample - mean_latency_ns_);
  }
}

double ObservedCost::Latency(BackendId backend, Time now) const {
  auto it = backends_.find(backend);
  if (it == backends_.end() || it->second.last == Time{0}) return mean_latency_ns_;
  const PerBackend& b = it->second;
  const double fade = base::DecayFactor(now - b.last, fade_half_life_);
  return mean_latency_ns_ + (b.latency_ns - mean_latency_ns_) * fade;
}

double ObservedCost::RecentErrors(BackendId backend, Time now) const {
  auto it = backends_.find(backend);
  return it == backends_.end() ? 0.0 : it->second.errors.Value(now);
}

}  // namespace railyard::balance
