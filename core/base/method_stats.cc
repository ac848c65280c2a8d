// SPDX-License-Identifier: Apache-2.0
#include "core/base/method_stats.h"

#include <algorithm>
#include <cmath>

namespace railyard::base {

using Clock = std::chrono::steady_clock;

namespace {

// As DecayingRate's default: a time constant of 1 s is a half life of ln 2 seconds.
constexpr double kRateTauSeconds = 1.0;

std::chrono::nanoseconds RateHalfLife() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double, std::milli>(1000.0 * kRateTauSeconds * std::log(2.0)));
}

}  // namespace

MethodStats::Rate::Rate() : events_(RateHalfLife()) {}

void MethodStats::Rate::Add(Clock::time_point now) {
  events_.Add(1, DecayingCount::SteadyTime(now));
}

double MethodStats::Rate::PerSecond(Clock::time_point now) const {
  return events_.Value(DecayingCount::SteadyTime(now)) / kRateTauSeconds;
}

void MethodStats::Record(const std::string& method, std::chrono::nanoseconds latency, bool error,
                         StatusCode code) {
  const double seconds = std::chrono::duration<double>(latency).count();
  const size_t bucket = static_cast<size_t>(
      std::lower_bound(kLatencyBoundsSeconds.begin(), kLatencyBoundsSeconds.end(), seconds) -
      kLatencyBoundsSeconds.begin());
  const Clock::time_point now = Clock::now();
  const int64_t epoch =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()) / kWindowLength;
  base::MutexLock lock(mu_);
  all_requests_.Add(now);
  if (error) all_errors_.Add(now);
  PerMethod& m = methods_[method];
  ++m.requests;
  m.request_rate.Add(now);
  if (error) {
    ++m.errors;
    m.error_rate.Add(now);
  }
  Window& window = m.windows[static_cast<size_t>(epoch % kWindows)];
  if (window.epoch != epoch) window = Window{epoch, {}};
  window.latencies.Add(latency);
  ++m.totals.codes[code];
  ++m.totals.buckets[bucket];
  m.totals.latency_sum_seconds += std::max(0.0, seconds);
}

std::vector<MethodStats::Totals> MethodStats::AllTotals() const {
  base::MutexLock lock(mu_);
  std::vector<Totals> out;
  for (const auto& [name, m] : methods_) {
    Totals t = m.totals;
    t.method = name;
    t.requests = m.requests;
    t.errors = m.errors;
    out.push_back(std::move(t));
  }
  return out;
}

void MethodStats::RecordRejection() { rejections_.Add(Clock::now()); }

std::vector<MethodStats::Summary> MethodStats::Summaries() const {
  const Clock::time_point now = Clock::now();
  const int64_t epoch =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()) / kWindowLength;
  base::MutexLock lock(mu_);
  std::vector<Summary> out;
  for (const auto& [name, m] : methods_) {
    Summary s;
    s.method = name;
    s.requests = m.requests;
    s.errors = m.errors;
    s.requests_per_s = m.request_rate.PerSecond(now);
    s.errors_per_s = m.error_rate.PerSecond(now);
    LatencyHistogram merged;
    MergeRecent(m, epoch, &merged);
    s.p50_us = merged.PercentileUs(0.50);
    s.p90_us = merged.PercentileUs(0.90);
    s.p99_us = merged.PercentileUs(0.99);
    s.max_us = merged.max_us();
    out.push_back(std::move(s));
  }
  return out;
}

MethodStats::Summary MethodStats::Overall() const {
  const Clock::time_point now = Clock::now();
  const int64_t epoch =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()) / kWindowLength;
  Summary s;
  LatencyHistogram merged;
  base::MutexLock lock(mu_);
  s.requests_per_s = all_requests_.PerSecond(now);
  s.errors_per_s = all_errors_.PerSecond(now);
  for (const auto& [name, m] : methods_) {
    s.requests += m.requests;
    s.errors += m.errors;
    MergeRecent(m, epoch, &merged);
  }
  s.p50_us = merged.PercentileUs(0.50);
  s.p90_us = merged.PercentileUs(0.90);
  s.p99_us = merged.PercentileUs(0.99);
  s.max_us = merged.max_us();
  return s;
}

void MethodStats::MergeRecent(const PerMethod& m, int64_t epoch, LatencyHistogram* into) {
  for (const Window& w : m.windows) {
    if (w.epoch >= 0 && epoch - w.epoch < kWindows) into->Merge(w.latencies);
  }
}

double MethodStats::requests_per_s() const {
  const Clock::time_point now = Clock::now();
  base::MutexLock lock(mu_);
  return all_requests_.PerSecond(now);
}

double MethodStats::errors_per_s() const {
  const Clock::time_point now = Clock::now();
  base::MutexLock lock(mu_);
  return all_errors_.PerSecond(now);
}
double MethodStats::rejections_per_s() const { return rejections_.PerSecond(Clock::now()); }

}  // namespace railyard::base
