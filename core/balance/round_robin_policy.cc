// SPDX-License-Identifier: Apache-2.0
#include "core/balance/round_robin_policy.h"

#include "core/balance/explain.h"

namespace railyard::balance {

size_t NextInRotation(std::span<const Candidate> candidates, std::span<const size_t> indices,
                      std::optional<BackendId> last) {
  std::optional<size_t> after, lowest;
  for (size_t i : indices) {
    const BackendId id = candidates[i].backend;
    if (!lowest || id < candidates[*lowest].backend) lowest = i;
    if (last && id > *last && (!after || id < candidates[*after].backend)) after = i;
  }
  return after ? *after : *lowest;
}

RoundRobinPolicy::RoundRobinPolicy(const PolicyOptions& options)
    : active_(options.max_active_per_backend) {}

std::optional<size_t> RoundRobinPolicy::Pick(std::span<const Candidate> candidates,
                                             std::span<const BackendId> avoid, Time /*now*/) {
  EligibleCandidates(candidates, avoid, active_, eligible_);
  if (eligible_.empty()) return std::nullopt;
  const size_t chosen = NextInRotation(candidates, eligible_, last_);
  last_ = candidates[chosen].backend;
  active_.Start(*last_);
  return chosen;
}

void RoundRobinPolicy::Finish(const Outcome& outcome) { active_.Finish(outcome.backend); }

Explanation RoundRobinPolicy::Explain(Time /*now*/) const {
  Explanation explanation = ExplainActive(name(), active_);
  SetEqualWeights(explanation);
  return explanation;
}

}  // namespace railyard::balance
