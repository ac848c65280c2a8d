// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "core/balance/policy.h"

namespace railyard::balance {

// Attempts in flight per backend, and the flow-control cap every policy shares: a backend never has
// more than `max_active` active attempts from one client, whatever the policy prefers.
//
// Thread safety: none.
class ActiveCounts {
 public:
  explicit ActiveCounts(uint32_t max_active) : max_active_(max_active) {}

  uint32_t max_active() const { return max_active_; }
  uint32_t Active(BackendId backend) const;
  bool AtCap(BackendId backend) const { return Active(backend) >= max_active_; }

  void Start(BackendId backend);
  void Finish(BackendId backend);  // A Finish without a Start is ignored (never underflows).

  // Every backend that ever started an attempt, by id.
  const std::map<BackendId, uint32_t>& all() const { return active_; }

 private:
  uint32_t max_active_;
  std::map<BackendId, uint32_t> active_;
};

bool Contains(std::span<const BackendId> ids, BackendId id);

// The indices of `candidates` a policy may choose from: those under the flow-control cap and not
// in `avoid`; when there are none, those under the cap even if in `avoid` (a retry on the same
// backend beats no retry). Clears `out` first; leaves it empty when every candidate is at its cap.
void EligibleCandidates(std::span<const Candidate> candidates, std::span<const BackendId> avoid,
                        const ActiveCounts& active, std::vector<size_t>& out);

}  // namespace railyard::balance
