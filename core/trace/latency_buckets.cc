// SPDX-License-Identifier: Apache-2.0
#include "core/trace/latency_buckets.h"

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

base::LatencyHistogram LatencyBetween(const admin::LatencyBuckets& earlier,
                                      const admin::LatencyBuckets& later) {
  std::map<uint32_t, uint64_t> before;
  for (int i = 0; i < earlier.bucket_size() && i < earlier.count_size(); ++i) {
    before[earlier.bucket(i)] += earlier.count(i);
  }
  bool restarted = false;
  for (int i = 0; i < later.bucket_size() && i < later.count_size(); ++i) {
    const auto b = before.find(later.bucket(i));
    if (b != before.end() && b->second > later.count(i)) restarted = true;
  }
  uint64_t later_total = 0, before_total = 0;
  for (int i = 0; i < later.count_size(); ++i) later_total += later.count(i);
  for (const auto& [bucket, count] : before) before_total += count;
  if (later_total < before_total) restarted = true;

  base::LatencyHistogram span;
  for (int i = 0; i < later.bucket_size() && i < later.count_size(); ++i) {
    const auto b = before.find(later.bucket(i));
    const uint64_t already = restarted || b == before.end() ? 0 : b->second;
    span.AddBucket(later.bucket(i), later.count(i) - already);
  }
  if (span.count() > 0 && later.max_ns() > 0) {
    span.SetMax(std::chrono::nanoseconds(static_cast<int64_t>(later.max_ns())));
  }
  return span;
}

}  // namespace railyard::trace
