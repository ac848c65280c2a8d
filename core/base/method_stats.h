#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/base/decaying_rate.h"
#include "core/base/latency_histogram.h"
#include "core/base/mutex.h"

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

  void Record(const std::string& method, std::chrono::nanoseconds latency, bool error);
  // Counts a call refused before it reached a handler (pool exhausted, draining).
  void RecordRejection();
  std::vector<Summary> Summaries() const;
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
  struct PerMethod {
    uint64_t requests = 0;
    uint64_t errors = 0;
    DecayingRate request_rate;
    DecayingRate error_rate;
    std::array<Window, kWindows> windows;
  };

  // The window's latencies of one method, merged into `into`.
  static void MergeRecent(const PerMethod& m, int64_t epoch, LatencyHistogram* into);

  mutable base::Mutex mu_;
  std::map<std::string, PerMethod> methods_ GUARDED_BY(mu_);
  DecayingRate all_requests_;
  DecayingRate all_errors_;
  DecayingRate rejections_;
};

}  // namespace railyard::base
