// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

#include "core/balance/active_counts.h"
#include "core/balance/observed_cost.h"
#include "core/balance/policy.h"

namespace railyard::balance {

// Boxcar's lowest slot, made to notice what its answers say. Of the `slot_choices` backends with
// the best idle slots (2 by default), it takes the one with the lowest observed cost: moving
// average latency x (1 + its active attempts + its recent errors), lowest slot on a tie. Plain
// Boxcar (slot_choices 1) sheds load from a slow server only while that server's connections stay
// busy; at low concurrency its idle low-slot connection keeps drawing every client's first
// request (contention, machine diversity, a hung or 50x slower backend). Comparing only the best
// slots keeps Boxcar's concentration of requests on few connections; counting recent errors is the
// SRE chapter's guard against a sinkhole. Uses nothing the servers do not already send.
// With slot_choices 1 it is the same rule as rpc::LowestSlotFastPath, with flow control.
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
