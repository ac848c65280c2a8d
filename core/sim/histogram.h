#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace railyard::sim {

// Log-linear histogram of non-negative integers (latencies in nanoseconds): 64 buckets per
// power of two, so a percentile is within 1.6% of the true value, in constant memory however
// many samples a run takes.
//
// Thread safety: none.
class Histogram {
 public:
  Histogram();
  void Add(uint64_t value);
  uint64_t count() const { return count_; }
  // The q-quantile (0..1): the upper bound of the bucket that holds it; 0 when empty.
  uint64_t Quantile(double q) const;

 private:
  static constexpr int kSubBits = 6;
  static size_t Index(uint64_t value);
  static uint64_t UpperBound(size_t index);

  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
};

}  // namespace railyard::sim
