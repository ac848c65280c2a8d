// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/balance/policy.h"
#include "core/base/mutex.h"
#include "core/rpc/selection_policy.h"
#include "core/rpc/status.h"

namespace railyard::rpc {

// How an attempt's code counts for a balancing policy: OK is a success; transport failures,
// UNAVAILABLE and the other runtime codes are errors (the server or the path to it is sick);
// DEADLINE_EXCEEDED is a timeout; LAME_DUCK (and POOL_EXHAUSTED, should a server ever send it) a
// rejection (retry elsewhere, not sick); CANCELLED (our own shutdown) and application codes
// (>= 100: not found, invalid argument, disk full...) are ignored, since they say nothing about
// the server's health.
balance::Result ToBalanceResult(Code code);

// A SelectionPolicy over one of core/balance's policies. Each pick offers the policy the servers
// that have an idle pooled connection (with that server's best idle slot and idle count) and takes
// the chosen server's lowest idle member; each outcome goes back to the policy with its load
// report. Backend ids are server indices.
//
// Thread safety: the Client calls Pick under its pool lock and OnOutcome concurrently; the wrapped
// policy is guarded by this object's own mutex (taken after the pool lock, never before it).
class BalancedSelection final : public SelectionPolicy {
 public:
  explicit BalancedSelection(const balance::PolicyOptions& options);

  std::string_view name() const override { return name_; }
  std::optional<SlotPool::Handle> Pick(SlotPool& pool,
                                       std::span<const uint32_t> failed_servers) override;
  void OnOutcome(const AttemptOutcome& outcome) override;
  std::optional<balance::Explanation> Explain() const override;

 private:
  const std::string name_;
  mutable base::Mutex mu_;
  const std::unique_ptr<balance::Policy> policy_ RAILYARD_PT_GUARDED_BY(mu_);
  std::vector<balance::Candidate> candidates_ RAILYARD_GUARDED_BY(mu_);  // Reused between picks.
  std::vector<SlotPool::Handle> best_idle_
      RAILYARD_GUARDED_BY(mu_);  // candidates_[i]'s best member.
};

// The balance policies' clock: steady time since its epoch.
balance::Time BalanceNow();

}  // namespace railyard::rpc
