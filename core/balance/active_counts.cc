// SPDX-License-Identifier: Apache-2.0
#include "core/balance/active_counts.h"

#include <algorithm>

namespace railyard::balance {

uint32_t ActiveCounts::Active(BackendId backend) const {
  auto it = active_.find(backend);
  return it == active_.end() ? 0 : it->second;
}

void ActiveCounts::Start(BackendId backend) { ++active_[backend]; }

void ActiveCounts::Finish(BackendId backend) {
  auto it = active_.find(backend);
  if (it != active_.end() && it->second > 0) --it->second;
}

bool Contains(std::span<const BackendId> ids, BackendId id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

void EligibleCandidates(std::span<const Candidate> candidates, std::span<const BackendId> avoid,
                        const ActiveCounts& active, std::vector<size_t>& out) {
  out.clear();
  bool any_avoided = false;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (active.AtCap(candidates[i].backend)) continue;
    if (Contains(avoid, candidates[i].backend)) {
      any_avoided = true;
      continue;
    }
    out.push_back(i);
  }
  if (!out.empty() || !any_avoided) return;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!active.AtCap(candidates[i].backend)) out.push_back(i);
  }
}

}  // namespace railyard::balance
