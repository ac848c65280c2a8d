#pragma once

#include "core/balance/policy.h"

namespace railyard::balance {

// The factor by which a quantity with half life `half_life` shrinks over `elapsed`
// (1 when no time passed or time went backwards; 0 for a zero half life).
double DecayFactor(Duration elapsed, Duration half_life);

// A count that halves every `half_life` (recent errors, decaying success sums). Time is passed in.
//
// Thread safety: none.
class DecayingCount {
 public:
  explicit DecayingCount(Duration half_life) : half_life_(half_life) {}

  void Add(double amount, Time now);
  double Value(Time now) const;

 private:
  Duration half_life_;
  double value_ = 0;
  Time last_{0};
};

}  // namespace railyard::balance
