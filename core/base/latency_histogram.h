// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace railyard::base {

// Latencies in a log-linear histogram of whole nanoseconds: values below 64 ns each have their
// own bucket, and above that every power of two is split into 64 equal buckets. A percentile is
// reported as the upper bound of the bucket that holds it, capped at the exact maximum, so it is
// never below the true (nearest-rank) percentile and at most 1/64 (1.6%) above it. Memory grows
// with the largest latency seen: about 13 KiB for a second, 19 KiB for an hour.
//
// Thread safety: none.
class LatencyHistogram {
 public:
  // Negative latencies count as 0.
  void Add(std::chrono::nanoseconds latency);
  void Merge(const LatencyHistogram& other);

  // The buckets, as a recording carries them (core/trace/latency_buckets.h), so that a reader
  // gets the same percentiles back: `fn(bucket, count)` for each bucket used, in order.
  template <typename Fn>
  void ForEachBucket(Fn&& fn) const {
    for (size_t b = 0; b < counts_.size(); ++b) {
      if (counts_[b] != 0) fn(b, counts_[b]);
    }
  }
  // Adds `count` latencies to `bucket` (as ForEachBucket gave it). max() becomes at least that
  // bucket's upper bound; SetMax then gives the exact maximum where a writer carried it.
  void AddBucket(size_t bucket, uint64_t count);
  void SetMax(std::chrono::nanoseconds max) { max_ns_ = static_cast<uint64_t>(max.count()); }

  uint64_t count() const { return count_; }
  // The q-quantile, q in [0, 1]; 0 when empty. Never above max().
  std::chrono::nanoseconds Percentile(double q) const;
  std::chrono::nanoseconds max() const { return std::chrono::nanoseconds(max_ns_); }
  // The same in microseconds, as telemetry reports them.
  double PercentileUs(double q) const;
  double max_us() const { return static_cast<double>(max_ns_) / 1e3; }

 private:
  static size_t BucketOf(uint64_t ns);
  static uint64_t BucketUpperNs(size_t bucket);

  std::vector<uint64_t> counts_;  // Up to the highest bucket used.
  uint64_t count_ = 0;
  uint64_t max_ns_ = 0;
};

}  // namespace railyard::base
