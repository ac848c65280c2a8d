#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace railyard::base {

// Latencies in microseconds, four buckets per power of two from 1 us up (percentiles within
// about 19%), plus the exact maximum.
//
// Thread safety: none.
class LatencyHistogram {
 public:
  void Record(double us);
  void Merge(const LatencyHistogram& other);
  // q in [0, 1]; 0 when empty. Never above the maximum seen.
  double Percentile(double q) const;
  uint64_t count() const { return count_; }
  double max_us() const { return max_us_; }

 private:
  static constexpr size_t kBuckets = 4 * 40 + 1;
  static size_t BucketOf(double us);
  static double BucketUpperUs(size_t bucket);

  std::array<uint64_t, kBuckets> counts_{};
  uint64_t count_ = 0;
  double max_us_ = 0;
};

}  // namespace railyard::base
