// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <map>
#include <vector>

#include "core/balance/active_counts.h"
#include "core/balance/aimd_limiter.h"
#include "core/balance/policy.h"
#include "core/base/decaying_count.h"
#include "core/base/random.h"

namespace railyard::balance {

// The adaptive balancer of the third seed, in its 2019 form: one exponentially decaying success
// rate per backend (decaying sums of successes and of finished attempts, half life
// `success_half_life`), weight = rate cubed (failures are trusted more than successes;
// `success_exponent` sets another power), a weighted random order (sampling without replacement)
// walked until a backend's concurrency limiter grants a lease, else fail fast.
// - A backend never seen counts as healthy (rate 1), so new backends compete from the start; its
//   first outcome is weighed against one pseudo-success (which decays like real outcomes), so a
//   single early failure halves its rate instead of ejecting it.
// - When its data decays away the rate keeps its last value (the ratio of the decayed sums), the
//   seed's "sticky bucket": a dead backend stays dead until it is probed again.
// - The floor `probe_floor / candidates` applies to the weight (applied to the rate and then cubed
//   it would be ~1e-13 and never probe), so a dead backend still gets a rare first pick and
//   recovers when it answers again; it also takes the overflow when healthier backends are at
//   their limit.
// - Successes count for health; errors and timeouts against; rejections (lame duck, overload) and
//   application errors (kIgnored) not at all: a refusing backend is not sick, but its limiter
//   counts the rejection as a drop, so a refusing backend soon has little room.
class AdaptivePolicy final : public Policy {
 public:
  explicit AdaptivePolicy(const PolicyOptions& options);

  std::string_view name() const override { return "adaptive"; }
  std::optional<size_t> Pick(std::span<const Candidate> candidates,
                             std::span<const BackendId> avoid, Time now) override;
  void Finish(const Outcome& outcome) override;
  Explanation Explain(Time now) const override;

  double SuccessRate(BackendId backend, Time now) const;
  uint32_t Limit(BackendId backend) const;

 private:
  struct Health {
    explicit Health(Duration half_life) : successes(half_life), finished(half_life) {}
    base::DecayingCount successes;
    base::DecayingCount finished;
  };

  double HealthWeight(double rate) const;  // rate ^ success_exponent
  double Weight(BackendId backend, size_t backend_count, Time now) const;
  AimdLimiter& LimiterFor(BackendId backend);
  // Walks `indices` in weighted random order; returns the first whose limiter grants a lease.
  std::optional<size_t> Walk(std::span<const Candidate> candidates, std::vector<size_t>& indices,
                             Time now);

  PolicyOptions options_;
  ActiveCounts active_;
  base::Rng rng_;
  std::map<BackendId, Health> health_;
  std::map<BackendId, AimdLimiter> limiters_;
  std::vector<size_t> preferred_, avoided_;
  std::vector<double> weights_;
  size_t backend_count_ = 1;
};

}  // namespace railyard::balance
