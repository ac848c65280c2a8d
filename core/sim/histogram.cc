#include "core/sim/histogram.h"

#include <bit>
#include <cmath>

namespace railyard::sim {

namespace {
constexpr uint64_t kSub = uint64_t{1} << 6;
}  // namespace

Histogram::Histogram() : buckets_((64 - kSubBits + 1) * kSub, 0) {}

// Values below kSub map to themselves; above, the bucket is (exponent, top kSubBits bits).
size_t Histogram::Index(uint64_t value) {
  if (value < kSub) return static_cast<size_t>(value);
  const int msb = 63 - std::countl_zero(value);
  const int shift = msb - kSubBits;
  const uint64_t mantissa = (value >> shift) - kSub;  // 0..kSub-1
  return static_cast<size_t>((shift + 1) * kSub + mantissa);
}

uint64_t Histogram::UpperBound(size_t index) {
  if (index < kSub) return index;
  const int shift = static_cast<int>(index / kSub) - 1;
  const uint64_t mantissa = index % kSub + kSub;
  return ((mantissa + 1) << shift) - 1;
}

void Histogram::Add(uint64_t value) {
  ++buckets_[Index(value)];
  ++count_;
}

uint64_t Histogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  const auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  const uint64_t target = rank == 0 ? 1 : rank;
  uint64_t seen = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= target) return UpperBound(i);
  }
  return UpperBound(buckets_.size() - 1);
}

}  // namespace railyard::sim
