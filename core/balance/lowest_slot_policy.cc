#include "core/balance/lowest_slot_policy.h"

#include "core/balance/explain.h"

namespace railyard::balance {

LowestSlotPolicy::LowestSlotPolicy(const PolicyOptions& options)
    : active_(options.max_active_per_backend) {}

std::optional<size_t> LowestSlotPolicy::Pick(std::span<const Candidate> candidates,
                                             std::span<const BackendId> avoid, Time /*now*/) {
  EligibleCandidates(candidates, avoid, active_, eligible_);
  if (eligible_.empty()) return std::nullopt;
  size_t best = eligible_.front();
  for (size_t i : eligible_) {
    if (candidates[i].best_slot < candidates[best].best_slot) best = i;
  }
  active_.Start(candidates[best].backend);
  return best;
}

void LowestSlotPolicy::Finish(const Outcome& outcome) { active_.Finish(outcome.backend); }

Explanation LowestSlotPolicy::Explain(Time /*now*/) const {
  Explanation explanation = ExplainActive(name(), active_);
  SetEqualWeights(explanation);
  return explanation;
}

}  // namespace railyard::balance
