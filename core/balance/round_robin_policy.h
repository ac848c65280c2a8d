// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <vector>

#include "core/balance/active_counts.h"
#include "core/balance/policy.h"

namespace railyard::balance {

// Each backend in turn: the next candidate after the last chosen backend, in backend-id order, so
// the rotation holds while the candidate list changes from pick to pick.
class RoundRobinPolicy final : public Policy {
 public:
  explicit RoundRobinPolicy(const PolicyOptions& options);

  std::string_view name() const override { return "round-robin"; }
  std::optional<size_t> Pick(std::span<const Candidate> candidates,
                             std::span<const BackendId> avoid, Time now) override;
  void Finish(const Outcome& outcome) override;
  Explanation Explain(Time now) const override;

 private:
  ActiveCounts active_;
  std::optional<BackendId> last_;
  std::vector<size_t> eligible_;
};

// Of `indices` into `candidates`, the one whose backend follows `last` in cyclic id order (the
// lowest id when `last` is empty or the highest). REQUIRES: !indices.empty().
size_t NextInRotation(std::span<const Candidate> candidates, std::span<const size_t> indices,
                      std::optional<BackendId> last);

}  // namespace railyard::balance
