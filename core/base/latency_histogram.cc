// SPDX-License-Identifier: Apache-2.0
#include "core/base/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace railyard::base {

namespace {
constexpr int kSubBits = 6;
constexpr uint64_t kSub = uint64_t{1} << kSubBits;  // Buckets per power of two.
}  // namespace

// Values below kSub map to themselves; above, the bucket is (exponent, the top kSubBits bits
// below the leading one).
size_t LatencyHistogram::BucketOf(uint64_t ns) {
  if (ns < kSub) return static_cast<size_t>(ns);
  const int msb = 63 - std::countl_zero(ns);
  const int shift = msb - kSubBits;
  const uint64_t mantissa = (ns >> shift) - kSub;  // 0..kSub-1
  return static_cast<size_t>(static_cast<uint64_t>(shift + 1) * kSub + mantissa);
}

uint64_t LatencyHistogram::BucketUpperNs(size_t bucket) {
  if (bucket < kSub) return bucket;
  const int shift = static_cast<int>(bucket / kSub) - 1;
  const uint64_t mantissa = bucket % kSub + kSub;
  return ((mantissa + 1) << shift) - 1;
}

void LatencyHistogram::Add(std::chrono::nanoseconds latency) {
  const uint64_t ns = static_cast<uint64_t>(std::max<int64_t>(0, latency.count()));
  const size_t bucket = BucketOf(ns);
  if (bucket >= counts_.size()) counts_.resize(bucket + 1, 0);
  ++counts_[bucket];
  ++count_;
  max_ns_ = std::max(max_ns_, ns);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  if (other.counts_.size() > counts_.size()) counts_.resize(other.counts_.size(), 0);
  for (size_t b = 0; b < other.counts_.size(); ++b) counts_[b] += other.counts_[b];
  count_ += other.count_;
  max_ns_ = std::max(max_ns_, other.max_ns_);
}

void LatencyHistogram::AddBucket(size_t bucket, uint64_t count) {
  if (count == 0) return;
  if (bucket >= counts_.size()) counts_.resize(bucket + 1, 0);
  counts_[bucket] += count;
  count_ += count;
  max_ns_ = std::max(max_ns_, BucketUpperNs(bucket));
}

std::chrono::nanoseconds LatencyHistogram::Percentile(double q) const {
  if (count_ == 0) return std::chrono::nanoseconds(0);
  const uint64_t rank =
      std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_))));
  uint64_t seen = 0;
  for (size_t b = 0; b < counts_.size(); ++b) {
    seen += counts_[b];
    if (seen >= rank) {
      return std::chrono::nanoseconds(static_cast<int64_t>(std::min(BucketUpperNs(b), max_ns_)));
    }
  }
  return max();
}

double LatencyHistogram::PercentileUs(double q) const {
  return static_cast<double>(Percentile(q).count()) / 1e3;
}

}  // namespace railyard::base
