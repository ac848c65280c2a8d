// SPDX-License-Identifier: Apache-2.0
#include "bench/latency_summary.h"

#include <algorithm>
#include <cmath>

namespace railyard::bench {
namespace {

// REQUIRES: `samples` is not empty; 0 < percent <= 100.
int64_t NearestRank(std::vector<int64_t>& samples, double percent) {
  const double n = static_cast<double>(samples.size());
  const auto rank = static_cast<size_t>(std::ceil(percent / 100.0 * n));
  const auto nth = samples.begin() + static_cast<std::ptrdiff_t>(std::max<size_t>(rank, 1) - 1);
  std::nth_element(samples.begin(), nth, samples.end());
  return *nth;
}

}  // namespace

LatencySummary Summarize(std::vector<int64_t>& latencies_ns) {
  if (latencies_ns.empty()) return {};
  LatencySummary summary;
  summary.p50_us = static_cast<double>(NearestRank(latencies_ns, 50)) / 1000.0;
  summary.p99_us = static_cast<double>(NearestRank(latencies_ns, 99)) / 1000.0;
  return summary;
}

}  // namespace railyard::bench
