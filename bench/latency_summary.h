// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

namespace railyard::bench {

struct LatencySummary {
  double p50_us = 0;
  double p99_us = 0;
};

// Nearest-rank percentiles (the smallest sample with at least p% of the samples at or below it) of
// `latencies_ns`, which it reorders. All zero when there are no samples.
LatencySummary Summarize(std::vector<int64_t>& latencies_ns);

}  // namespace railyard::bench
