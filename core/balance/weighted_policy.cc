// SPDX-License-Identifier: Apache-2.0
#include "core/balance/weighted_policy.h"

#include <algorithm>

#include "core/balance/explain.h"

namespace railyard::balance {
namespace {

// Utilization below this is measurement noise; it would make capacity estimates explode.
constexpr double kMinUtilization = 0.01;

}  // namespace

WeightedPolicy::WeightedPolicy(const PolicyOptions& options)
    : options_(options), active_(options.max_active_per_backend) {}

std::optional<double> WeightedPolicy::ReportedWeight(BackendId backend, Time now) const {
  auto it = states_.find(backend);
  if (it == states_.end() || !it->second.report) return std::nullopt;
  if (now - it->second.reported > options_.report_ttl) return std::nullopt;
  const LoadReport& report = *it->second.report;
  // An idle backend says nothing about its capacity yet.
  if (report.requests_per_s <= 0) return std::nullopt;
  const double successes =
      std::max(0.0, report.requests_per_s - options_.error_penalty * report.errors_per_s);
  return successes / std::max(report.utilization, kMinUtilization);
}

std::vector<WeightedPolicy::Weighing> WeightedPolicy::Weigh(std::span<const BackendId> backends,
                                                            Time now) const {
  std::vector<Weighing> weighings(backends.size());
  std::vector<std::optional<double>> reported(backends.size());
  double sum = 0;
  size_t count = 0;
  for (size_t i = 0; i < backends.size(); ++i) {
    reported[i] = ReportedWeight(backends[i], now);
    if (reported[i]) {
      sum += *reported[i];
      ++count;
    }
  }
  const double mean = count > 0 && sum > 0 ? sum / static_cast<double>(count) : 1.0;
  const double floor = options_.weight_floor * mean;
  for (size_t i = 0; i < backends.size(); ++i) {
    Weighing& weighing = weighings[i];
    if (!reported[i]) {
      weighing.weight = mean;
      auto it = states_.find(backends[i]);
      weighing.note = it != states_.end() && it->second.report ? "report expired" : "no report";
    } else if (*reported[i] < floor) {
      weighing.weight = floor;
      weighing.note = "at weight floor";
    } else {
      weighing.weight = *reported[i];
    }
  }
  return weighings;
}

std::optional<size_t> WeightedPolicy::Pick(std::span<const Candidate> candidates,
                                           std::span<const BackendId> avoid, Time now) {
  EligibleCandidates(candidates, avoid, active_, eligible_);
  if (eligible_.empty()) return std::nullopt;
  backends_.clear();
  for (size_t i : eligible_) backends_.push_back(candidates[i].backend);
  const std::vector<Weighing> weighings = Weigh(backends_, now);
  double total = 0;
  for (const Weighing& weighing : weighings) total += weighing.weight;
  // Smooth weighted round robin on normalised weights, so credits stay bounded as reports change.
  size_t best = 0;
  double best_credit = 0;
  for (size_t k = 0; k < eligible_.size(); ++k) {
    State& state = states_[backends_[k]];
    state.current += weighings[k].weight / total;
    if (k == 0 || state.current > best_credit) {
      best = k;
      best_credit = state.current;
    }
  }
  states_[backends_[best]].current -= 1.0;
  active_.Start(backends_[best]);
  return eligible_[best];
}

void WeightedPolicy::Finish(const Outcome& outcome) {
  active_.Finish(outcome.backend);
  if (!outcome.load) return;
  State& state = states_[outcome.backend];
  if (state.report && outcome.now < state.reported) return;  // An older report arriving late.
  state.report = outcome.load;
  state.reported = outcome.now;
}

Explanation WeightedPolicy::Explain(Time now) const {
  Explanation explanation = ExplainActive(name(), active_);
  for (const auto& [backend, state] : states_) ExplainBackend(explanation, active_, backend);
  std::vector<BackendId> backends;
  for (const auto& entry : explanation.backends) backends.push_back(entry.backend);
  const std::vector<Weighing> weighings = Weigh(backends, now);
  for (size_t i = 0; i < backends.size(); ++i) {
    auto& entry = explanation.backends[i];
    entry.weight = weighings[i].weight;
    if (entry.note.empty()) entry.note = weighings[i].note;
    auto it = states_.find(entry.backend);
    if (it != states_.end() && it->second.report && it->second.report->requests_per_s > 0) {
      const LoadReport& report = *it->second.report;
      entry.success_rate = std::clamp(1.0 - report.errors_per_s / report.requests_per_s, 0.0, 1.0);
    }
  }
  NormaliseWeights(explanation);
  return explanation;
}

}  // namespace railyard::balance
