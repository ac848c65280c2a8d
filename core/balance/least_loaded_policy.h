// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "core/balance/active_counts.h"
#include "core/balance/policy.h"
#include "core/base/decaying_count.h"

namespace railyard::balance {

// Least-loaded round robin (the SRE chapter): the candidate with the fewest active requests, ties
// in rotation. A backend that fails fast always looks idle, so plain least-loaded pours traffic
// into it (sinkholing); here each recent failure (error, timeout or rejection, decaying with
// `error_half_life`) counts as an active request, so fast failures make a backend look busy.
// `count_errors_as_active = false` is the naive version, kept to show the sinkhole.
class LeastLoadedPolicy final : public Policy {
 public:
  explicit LeastLoadedPolicy(const PolicyOptions& options);

  std::string_view name() const override { return "least-loaded"; }
  std::optional<size_t> Pick(std::span<const Candidate> candidates,
                             std::span<const BackendId> avoid, Time now) override;
  void Finish(const Outcome& outcome) override;
  Explanation Explain(Time now) const override;

  // The load a pick compares: active attempts plus (when counted) recent errors.
  double Load(BackendId backend, Time now) const;

 private:
  double RecentErrors(BackendId backend, Time now) const;

  PolicyOptions options_;
  ActiveCounts active_;
  std::map<BackendId, base::DecayingCount> errors_;
  std::optional<BackendId> last_;
  std::vector<size_t> eligible_;
  std::vector<size_t> least_;
};

}  // namespace railyard::balance
