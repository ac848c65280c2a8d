// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/base/decaying_count.h"
#include "core/base/decaying_rate.h"
#include "core/base/latency_histogram.h"
#include "core/base/mutex.h"
#include "core/base/status.h"

namespace railyard::base {

// Latency and throughput of each RPC method a process serves: request and error counts since start,
// rates, and latency percentiles over about the last minute (six rotating 10-second
// LatencyHistograms, so percentiles are within 1.6%).
//
// Thread safety: all methods may be called concurrently.
class MethodStats {
 public:
  struct Summary {
    std::string method;
    uint64_t requests = 0;
    uint64_t errors = 0;
    double requests_per_s = 0;
    double errors_per_s = 0;
    double p50_us = 0;
    double p90_us = 0;
    double p99_us = 0;
    double max_us = 0;
  };

  // Cumulative figures of one method since start, for Prometheus (which wants counters and
  // histogram buckets it can rate and aggregate, not percentiles over a window): answers by
  // status code and latencies in fixed buckets (upper bounds kLatencyBoundsSeconds, then +Inf).
  static constexpr std::array<double, 15> kLatencyBoundsSeconds{
      0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
      0.025,   0.05,   0.1,     0.25,   0.5,   1,      2.5};
  struct Totals {
    std::string method;
    uint64_t requests = 0;  // The same figures as Summary's.
    uint64_t errors = 0;
    std::map<StatusCode, uint64_t> codes;  // Every answer by its status code; sums to requests.
    // buckets[i]: requests that took at most kLatencyBoundsSeconds[i] and more than the bound
    // before; the last one counts the rest (not cumulative: Prometheus' `le` sums are the
    // exposition's business).
    std::array<uint64_t, kLatencyBoundsSeconds.size() + 1> buckets{};
    double latency_sum_seconds = 0;
  };

  // `code`: the answer's status (an error or not is the caller's call: NOT_FOUND is an answer).
  void Record(const std::string& method, std::chrono::nanoseconds latency, bool error,
              StatusCode code = StatusCode::kOk);
  // Counts a call refused before it reached a handler (pool exhausted, draining).
  void RecordRejection();
  std::vector<Summary> Summaries() const;
  std::vector<Totals> AllTotals() const;
  // Every method together (`method` empty): counts, rates and percentiles over the same window.
  Summary Overall() const;
  double requests_per_s() const;
  double errors_per_s() const;
  double rejections_per_s() const;

 private:
  static constexpr int kWindows = 6;
  static constexpr std::chrono::seconds kWindowLength{10};

  struct Window {
    int64_t epoch = -1;  // Which 10-second period this window holds.
    LatencyHistogram latencies;
  };
  // A DecayingRate (time constant 1 s) without its own lock: mu_ covers these, so that Record
  // takes one lock rather than one per rate.
  class Rate {
   public:
    Rate();
    void Add(std::chrono::steady_clock::time_point now);
    double PerSecond(std::chrono::steady_clock::time_point now) const;

   private:
    DecayingCount events_;
  };
  struct PerMethod {
    uint64_t requests = 0;
    uint64_t errors = 0;
    Rate request_rate;
    Rate error_rate;
    std::array<Window, kWindows> windows;
    Totals totals;
  };

  // The window's latencies of one method, merged into `into`.
  static void MergeRecent(const PerMethod& m, int64_t epoch, LatencyHistogram* into);

  mutable base::Mutex mu_;
  std::map<std::string, PerMethod> methods_ RAILYARD_GUARDED_BY(mu_);
  Rate all_requests_ RAILYARD_GUARDED_BY(mu_);
  Rate all_errors_ RAILYARD_GUARDED_BY(mu_);
  DecayingRate rejections_;
};

}  // namespace railyard::base
