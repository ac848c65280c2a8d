#include "core/base/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace railyard::base {

size_t LatencyHistogram::BucketOf(double us) {
  if (us < 1) return 0;
  const int exponent = static_cast<int>(std::floor(std::log2(us)));
  const double base = std::ldexp(1.0, exponent);
  const int sub = std::min(3, static_cast<int>((us - base) / base * 4));
  return std::min(kBuckets - 1, static_cast<size_t>(exponent * 4 + sub + 1));
}

double LatencyHistogram::BucketUpperUs(size_t bucket) {
  if (bucket == 0) return 1;
  const size_t exponent = (bucket - 1) / 4;
  const size_t sub = (bucket - 1) % 4;
  const double base = std::ldexp(1.0, static_cast<int>(exponent));
  return base + base * static_cast<double>(sub + 1) / 4;
}

void LatencyHistogram::Record(double us) {
  ++counts_[BucketOf(us)];
  ++count_;
  max_us_ = std::max(max_us_, us);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (size_t b = 0; b < kBuckets; ++b) counts_[b] += other.counts_[b];
  count_ += other.count_;
  max_us_ = std::max(max_us_, other.max_us_);
}

double LatencyHistogram::Percentile(double q) const {
  if (count_ == 0) return 0;
  const uint64_t rank =
      std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_))));
  uint64_t seen = 0;
  for (size_t b = 0; b < kBuckets; ++b) {
    seen += counts_[b];
    if (seen >= rank) return std::min(BucketUpperUs(b), max_us_);
  }
  return max_us_;
}

}  // namespace railyard::base
