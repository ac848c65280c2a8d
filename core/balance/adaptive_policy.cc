// SPDX-License-Identifier: Apache-2.0
#include "core/balance/adaptive_policy.h"

#include <algorithm>
#include <cmath>

#include "core/balance/explain.h"

namespace railyard::balance {

AdaptivePolicy::AdaptivePolicy(const PolicyOptions& options)
    : options_(options), active_(options.max_active_per_backend), rng_(base::Mix64(options.seed)) {}

double AdaptivePolicy::SuccessRate(BackendId backend, Time now) const {
  auto it = health_.find(backend);
  if (it == health_.end()) return 1.0;
  const double finished = it->second.finished.Value(now);
  // Decay shrinks both sums alike; only a sum that underflowed to nothing loses the ratio.
  if (finished <= 1e-300) return 1.0;
  return std::clamp(it->second.successes.Value(now) / finished, 0.0, 1.0);
}

uint32_t AdaptivePolicy::Limit(BackendId backend) const {
  auto it = limiters_.find(backend);
  const uint32_t limiter =
      it == limiters_.end() ? AimdLimiter::Options{}.initial_limit : it->second.limit();
  return std::min(limiter, active_.max_active());
}

double AdaptivePolicy::HealthWeight(double rate) const {
  return std::pow(rate, options_.success_exponent);
}

double AdaptivePolicy::Weight(BackendId backend, size_t backend_count, Time now) const {
  const double floor =
      options_.probe_floor / static_cast<double>(std::max<size_t>(1, backend_count));
  return std::max(HealthWeight(SuccessRate(backend, now)), floor);
}

AimdLimiter& AdaptivePolicy::LimiterFor(BackendId backend) {
  auto it = limiters_.find(backend);
  if (it != limiters_.end()) return it->second;
  AimdLimiter::Options limiter_options;
  limiter_options.max_limit = options_.max_active_per_backend;
  limiter_options.initial_limit =
      std::min(limiter_options.initial_limit, options_.max_active_per_backend);
  return limiters_.emplace(backend, AimdLimiter(limiter_options)).first->second;
}

std::optional<size_t> AdaptivePolicy::Walk(std::span<const Candidate> candidates,
                                           std::vector<size_t>& indices, Time now) {
  weights_.clear();
  double total = 0;
  for (size_t i : indices) {
    weights_.push_back(Weight(candidates[i].backend, backend_count_, now));
    total += weights_.back();
  }
  // Sequential weighted sampling without replacement, drawn lazily: usually the first draw wins.
  while (!indices.empty()) {
    double target = rng_.Uniform() * total;
    size_t k = 0;
    while (k + 1 < indices.size() && target >= weights_[k]) {
      target -= weights_[k];
      ++k;
    }
    const BackendId backend = candidates[indices[k]].backend;
    if (LimiterFor(backend).TryAcquire()) return indices[k];
    total -= weights_[k];
    indices.erase(indices.begin() + static_cast<std::ptrdiff_t>(k));
    weights_.erase(weights_.begin() + static_cast<std::ptrdiff_t>(k));
  }
  return std::nullopt;
}

std::optional<size_t> AdaptivePolicy::Pick(std::span<const Candidate> candidates,
                                           std::span<const BackendId> avoid, Time now) {
  preferred_.clear();
  avoided_.clear();
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (active_.AtCap(candidates[i].backend)) continue;
    (Contains(avoid, candidates[i].backend) ? avoided_ : preferred_).push_back(i);
  }
  backend_count_ = std::max<size_t>(1, candidates.size());
  std::optional<size_t> chosen = Walk(candidates, preferred_, now);
  if (!chosen) chosen = Walk(candidates, avoided_, now);
  if (chosen) active_.Start(candidates[*chosen].backend);
  return chosen;
}

void AdaptivePolicy::Finish(const Outcome& outcome) {
  active_.Finish(outcome.backend);
  auto limiter = limiters_.find(outcome.backend);
  if (limiter != limiters_.end()) limiter->second.Release(outcome.result, outcome.latency);
  double success = 0;
  switch (outcome.result) {
    case Result::kSuccess:
      success = 1.0;
      break;
    case Result::kError:
    case Result::kTimeout:
      success = 0.0;
      break;
    case Result::kRejected:
    case Result::kIgnored:
      return;
  }
  auto [it, first_sight] = health_.try_emplace(outcome.backend, options_.success_half_life);
  Health& health = it->second;
  if (first_sight) {
    // Healthy until shown otherwise: one pseudo-success, decaying like real ones, so a single
    // early failure halves the rate instead of ejecting the backend.
    health.successes.Add(1.0, outcome.now);
    health.finished.Add(1.0, outcome.now);
  }
  health.successes.Add(success, outcome.now);
  health.finished.Add(1.0, outcome.now);
}

Explanation AdaptivePolicy::Explain(Time now) const {
  Explanation explanation = ExplainActive(name(), active_);
  for (const auto& [backend, health] : health_) ExplainBackend(explanation, active_, backend);
  for (const auto& [backend, limiter] : limiters_) ExplainBackend(explanation, active_, backend);
  const double floor =
      options_.probe_floor / static_cast<double>(std::max<size_t>(1, backend_count_));
  for (auto& entry : explanation.backends) {
    entry.success_rate = SuccessRate(entry.backend, now);
    entry.weight = Weight(entry.backend, backend_count_, now);
    entry.limit = Limit(entry.backend);
    auto it = health_.find(entry.backend);
    if (it != health_.end()) {
      entry.recent_errors =
          std::max(0.0, it->second.finished.Value(now) - it->second.successes.Value(now));
    }
    entry.ejected = HealthWeight(entry.success_rate) < floor;
    if (entry.active >= entry.limit) {
      entry.note = "at limit";
    } else if (entry.ejected) {
      entry.note = "probe only";
    }
  }
  NormaliseWeights(explanation);
  return explanation;
}

}  // namespace railyard::balance
