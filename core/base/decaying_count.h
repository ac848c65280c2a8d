// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>

namespace railyard::base {

// The factor by which a quantity with half life `half_life` shrinks over `elapsed`
// (1 when no time passed or time went backwards; 0 for a zero half life).
double DecayFactor(std::chrono::nanoseconds elapsed, std::chrono::nanoseconds half_life);

// A count that halves every `half_life` (recent errors, decaying success sums, event rates). Time
// is passed in, so the balance policies run on the simulator's virtual clock and repeat exactly.
//
// Thread safety: none.
class DecayingCount {
 public:
  using Time = std::chrono::nanoseconds;  // Since an epoch the caller chooses.

  // A steady clock's reading as a Time (since the clock's epoch).
  static Time SteadyTime(std::chrono::steady_clock::time_point now) {
    return std::chrono::duration_cast<Time>(now.time_since_epoch());
  }

  explicit DecayingCount(std::chrono::nanoseconds half_life) : half_life_(half_life) {}

  void Add(double amount, Time now);
  double Value(Time now) const;

 private:
  std::chrono::nanoseconds half_life_;
  double value_ = 0;
  Time last_{0};
};

}  // namespace railyard::base
