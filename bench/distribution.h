// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <vector>

namespace railyard::bench {

// Percentiles of a run's samples (frame times in ms, gaps, lags): the sample at rank q * n of the
// sorted samples, as the console benchmarks have always reported them. All zero for no samples.
struct Distribution {
  double p50 = 0, p90 = 0, p99 = 0, max = 0;
};

inline Distribution Summarize(std::vector<double> samples) {
  Distribution d;
  if (samples.empty()) return d;
  std::sort(samples.begin(), samples.end());
  auto at = [&](double q) {
    return samples[std::min(samples.size() - 1, static_cast<size_t>(q * double(samples.size())))];
  };
  d.p50 = at(0.50);
  d.p90 = at(0.90);
  d.p99 = at(0.99);
  d.max = samples.back();
  return d;
}

}  // namespace railyard::bench
