// SPDX-License-Identifier: Apache-2.0
#include "core/trace/latency_buckets.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>

namespace railyard::trace {

void ToLatencyBuckets(const base::LatencyHistogram& histogram, admin::LatencyBuckets* out) {
  out->Clear();
  histogram.ForEachBucket([out](size_t bucket, uint64_t count) {
    out->add_bucket(static_cast<uint32_t>(bucket));
    out->add_count(count);
  });
  out->set_max_ns(static_cast<uint64_t>(histogram.max().count()));
}

namespace {

std::map<uint32_t, uint64_t> CountsOf(const admin::LatencyBuckets& buckets) {
  std::map<uint32_t, uint64_t> counts;
  for (int i = 0; i < buckets.bucket_size() && i < buckets.count_size(); ++i) {
    counts[buckets.bucket(i)] += buckets.count(i);
  }
  return counts;
}

}  // namespace

base::LatencyHistogram LatencyBetween(const admin::LatencyBuckets& earlier,
                                      const admin::LatencyBuckets& later) {
  const std::map<uint32_t, uint64_t> before = CountsOf(earlier), after = CountsOf(later);
  // Cumulative counts never shrink in one process: a bucket that did means a restart.
  const bool restarted = std::any_of(before.begin(), before.end(), [&](const auto& b) {
    const auto a = after.find(b.first);
    return a == after.end() || a->second < b.second;
  });
  base::LatencyHistogram span;
  for (const auto& [bucket, count] : after) {
    const auto b = before.find(bucket);
    span.AddBucket(bucket, count - (restarted || b == before.end() ? 0 : b->second));
  }
  if (span.count() > 0 && later.max_ns() > 0) {
    span.SetMax(std::chrono::nanoseconds(static_cast<int64_t>(later.max_ns())));
  }
  return span;
}

}  // namespace railyard::trace
