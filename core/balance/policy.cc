// SPDX-License-Identifier: Apache-2.0
#include "core/balance/policy.h"

#include "core/balance/adaptive_policy.h"
#include "core/balance/least_loaded_policy.h"
#include "core/balance/lowest_slot_policy.h"
#include "core/balance/round_robin_policy.h"
#include "core/balance/weighted_policy.h"

namespace railyard::balance {
namespace {

constexpr PolicyKind kKinds[] = {PolicyKind::kLowestSlot, PolicyKind::kRoundRobin,
                                 PolicyKind::kLeastLoaded, PolicyKind::kWeighted,
                                 PolicyKind::kAdaptive};

}  // namespace

std::optional<PolicyKind> ParsePolicyKind(std::string_view name) {
  for (PolicyKind kind : kKinds) {
    if (PolicyKindName(kind) == name) return kind;
  }
  return std::nullopt;
}

std::string_view PolicyKindName(PolicyKind kind) {
  switch (kind) {
    case PolicyKind::kLowestSlot:
      return "lowest-slot";
    case PolicyKind::kRoundRobin:
      return "round-robin";
    case PolicyKind::kLeastLoaded:
      return "least-loaded";
    case PolicyKind::kWeighted:
      return "weighted";
    case PolicyKind::kAdaptive:
      return "adaptive";
  }
  return "unknown";
}

std::unique_ptr<Policy> MakePolicy(const PolicyOptions& options) {
  switch (options.kind) {
    case PolicyKind::kLowestSlot:
      return std::make_unique<LowestSlotPolicy>(options);
    case PolicyKind::kRoundRobin:
      return std::make_unique<RoundRobinPolicy>(options);
    case PolicyKind::kLeastLoaded:
      return std::make_unique<LeastLoadedPolicy>(options);
    case PolicyKind::kWeighted:
      return std::make_unique<WeightedPolicy>(options);
    case PolicyKind::kAdaptive:
      return std::make_unique<AdaptivePolicy>(options);
  }
  return nullptr;
}

}  // namespace railyard::balance
