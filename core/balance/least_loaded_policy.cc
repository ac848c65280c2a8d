// SPDX-License-Identifier: Apache-2.0
#include "core/balance/least_loaded_policy.h"

#include "core/balance/explain.h"
#include "core/balance/round_robin_policy.h"

namespace railyard::balance {
namespace {

// Two loads this close are a tie (decayed error counts are never exactly equal).
constexpr double kTie = 1e-9;

}  // namespace

LeastLoadedPolicy::LeastLoadedPolicy(const PolicyOptions& options)
    : options_(options), active_(options.max_active_per_backend) {}

double LeastLoadedPolicy::RecentErrors(BackendId backend, Time now) const {
  auto it = errors_.find(backend);
  return it == errors_.end() ? 0.0 : it->second.Value(now);
}

double LeastLoadedPolicy::Load(BackendId backend, Time now) const {
  double load = active_.Active(backend);
  if (options_.count_errors_as_active) load += RecentErrors(backend, now);
  return load;
}

std::optional<size_t> LeastLoadedPolicy::Pick(std::span<const Candidate> candidates,
                                              std::span<const BackendId> avoid, Time now) {
  EligibleCandidates(candidates, avoid, active_, eligible_);
  if (eligible_.empty()) return std::nullopt;
  double lowest = Load(candidates[eligible_.front()].backend, now);
  for (size_t i : eligible_) lowest = std::min(lowest, Load(candidates[i].backend, now));
  least_.clear();
  for (size_t i : eligible_) {
    if (Load(candidates[i].backend, now) <= lowest + kTie) least_.push_back(i);
  }
  const size_t chosen = NextInRotation(candidates, least_, last_);
  last_ = candidates[chosen].backend;
  active_.Start(*last_);
  return chosen;
}

void LeastLoadedPolicy::Finish(const Outcome& outcome) {
  active_.Finish(outcome.backend);
  switch (outcome.result) {
    case Result::kError:
    case Result::kTimeout:
    case Result::kRejected: {
      auto it = errors_.try_emplace(outcome.backend, options_.error_half_life).first;
      it->second.Add(1.0, outcome.now);
      break;
    }
    case Result::kSuccess:
    case Result::kIgnored:
      break;
  }
}

Explanation LeastLoadedPolicy::Explain(Time now) const {
  Explanation explanation = ExplainActive(name(), active_);
  for (const auto& [backend, errors] : errors_) ExplainBackend(explanation, active_, backend);
  if (explanation.backends.empty()) return explanation;
  double lowest = Load(explanation.backends.front().backend, now);
  for (const auto& entry : explanation.backends)
    lowest = std::min(lowest, Load(entry.backend, now));
  for (auto& entry : explanation.backends) {
    entry.recent_errors = RecentErrors(entry.backend, now);
    // The next pick goes to one of the least loaded; they share the weight.
    entry.weight = Load(entry.backend, now) <= lowest + kTie ? 1.0 : 0.0;
    if (entry.note.empty() && options_.count_errors_as_active && entry.recent_errors >= 0.5) {
      entry.note = "errors count as load";
    }
  }
  NormaliseWeights(explanation);
  return explanation;
}

}  // namespace railyard::balance
