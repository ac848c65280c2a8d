#pragma once

#include <vector>

#include "core/balance/active_counts.h"
#include "core/balance/observed_cost.h"
#include "core/balance/policy.h"

namespace railyard::balance {

// Boxcar: the candidate whose best idle connection has the lowest server slot, so the Nth
// concurrent request rides the Nth best connection and slow servers shed load on their own. The
// same rule as rpc::LowestSlotFastPath (the client's stateless fast path), here with flow control
// so the simulator and the client's policy seam can run it like any other.
class LowestSlotPolicy final : public Policy {
 public:
  explicit LowestSlotPolicy(const PolicyOptions& options);

  std::string_view name() const override { return "lowest-slot"; }
  std::optional<size_t> Pick(std::span<const Candidate> candidates,
                             std::span<const BackendId> avoid, Time now) override;
  void Finish(const Outcome& outcome) override;
  Explanation Explain(Time now) const override;

 private:
  double Cost(BackendId backend, Time now) const;

  uint32_t choices_;
  ActiveCounts active_;
  ObservedCost observed_;
  std::vector<size_t> eligible_;
};

}  // namespace railyard::balance
