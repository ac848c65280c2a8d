// SPDX-License-Identifier: Apache-2.0
#include "core/balance/explain.h"

#include <algorithm>
#include <string>

namespace railyard::balance {

Explanation ExplainActive(std::string_view policy, const ActiveCounts& active) {
  Explanation explanation;
  explanation.policy = std::string(policy);
  for (const auto& [backend, count] : active.all()) ExplainBackend(explanation, active, backend);
  return explanation;
}

BackendExplanation& ExplainBackend(Explanation& explanation, const ActiveCounts& active,
                                   BackendId backend) {
  auto& backends = explanation.backends;
  auto it = std::lower_bound(
      backends.begin(), backends.end(), backend,
      [](const BackendExplanation& entry, BackendId id) { return entry.backend < id; });
  if (it != backends.end() && it->backend == backend) return *it;
  BackendExplanation entry;
  entry.backend = backend;
  entry.active = active.Active(backend);
  entry.limit = active.max_active();
  if (active.AtCap(backend)) entry.note = "at limit";
  return *backends.insert(it, std::move(entry));
}

void SetEqualWeights(Explanation& explanation) {
  if (explanation.backends.empty()) return;
  const double share = 1.0 / static_cast<double>(explanation.backends.size());
  for (auto& backend : explanation.backends) backend.weight = share;
}

void NormaliseWeights(Explanation& explanation) {
  double total = 0;
  for (const auto& backend : explanation.backends) total += backend.weight;
  if (total <= 0) return;
  for (auto& backend : explanation.backends) backend.weight /= total;
}

}  // namespace railyard::balance
