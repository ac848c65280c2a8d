// SPDX-License-Identifier: Apache-2.0
#include "core/balance/lowest_slot_policy.h"

#include <algorithm>

#include "core/balance/explain.h"

namespace railyard::balance {

LowestSlotPolicy::LowestSlotPolicy(const PolicyOptions& options)
    : choices_(std::max<uint32_t>(1, options.slot_choices)),
      active_(options.max_active_per_backend),
      observed_(options.latency_fade_half_life, options.error_half_life) {}

double LowestSlotPolicy::Cost(BackendId backend, Time now) const {
  return observed_.Latency(backend, now) *
         (1.0 + active_.Active(backend) + observed_.RecentErrors(backend, now));
}

std::optional<size_t> LowestSlotPolicy::Pick(std::span<const Candidate> candidates,
                                             std::span<const BackendId> avoid, Time now) {
  EligibleCandidates(candidates, avoid, active_, eligible_);
  if (eligible_.empty()) return std::nullopt;
  const size_t compared = std::min<size_t>(choices_, eligible_.size());
  std::partial_sort(eligible_.begin(), eligible_.begin() + static_cast<ptrdiff_t>(compared),
                    eligible_.end(), [&](size_t a, size_t b) {
                      return candidates[a].best_slot != candidates[b].best_slot
                                 ? candidates[a].best_slot < candidates[b].best_slot
                                 : a < b;
                    });
  size_t best = eligible_.front();
  double best_cost = Cost(candidates[best].backend, now);
  for (size_t k = 1; k < compared; ++k) {
    const size_t i = eligible_[k];
    const double cost = Cost(candidates[i].backend, now);
    if (cost < best_cost) {
      best = i;
      best_cost = cost;
    }
  }
  active_.Start(candidates[best].backend);
  return best;
}

void LowestSlotPolicy::Finish(const Outcome& outcome) {
  active_.Finish(outcome.backend);
  observed_.Record(outcome);
}

Explanation LowestSlotPolicy::Explain(Time now) const {
  Explanation explanation = ExplainActive(name(), active_);
  SetEqualWeights(explanation);
  for (auto& entry : explanation.backends) {
    entry.recent_errors = observed_.RecentErrors(entry.backend, now);
  }
  return explanation;
}

}  // namespace railyard::balance
