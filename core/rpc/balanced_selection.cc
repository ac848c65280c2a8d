// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/balanced_selection.h"

#include <chrono>

namespace railyard::rpc {

balance::Time BalanceNow() {
  return std::chrono::duration_cast<balance::Time>(
      std::chrono::steady_clock::now().time_since_epoch());
}

balance::Result ToBalanceResult(Code code) {
  switch (code) {
    case Code::kOk:
      return balance::Result::kSuccess;
    case Code::kDeadlineExceeded:
      return balance::Result::kTimeout;
    case Code::kLameDuck:
    case Code::kPoolExhausted:
    case Code::kBehind:
      return balance::Result::kRejected;
    case Code::kCancelled:
      return balance::Result::kIgnored;
    case Code::kUnavailable:
    case Code::kUnknownMethod:
    case Code::kProtocolError:
    case Code::kUnauthenticated:
    case Code::kInternal:
      return balance::Result::kError;
    default:
      break;
  }
  return static_cast<int>(code) >= 100 ? balance::Result::kIgnored : balance::Result::kError;
}

BalancedSelection::BalancedSelection(const balance::PolicyOptions& options)
    : name_(balance::PolicyKindName(options.kind)), policy_(balance::MakePolicy(options)) {}

std::optional<SlotPool::Handle> BalancedSelection::Pick(SlotPool& pool,
                                                        std::span<const uint32_t> failed_servers) {
  base::MutexLock lock(mu_);
  // Members are in slot order, so a server's first idle member is its best idle slot, and the
  // one to take if the policy chooses that server.
  candidates_.clear();
  best_idle_.clear();
  for (const SlotPool::Handle handle : pool.order()) {
    const SlotPool::Entry& entry = pool.entry(handle);
    if (entry.busy) continue;
    bool known = false;
    for (balance::Candidate& candidate : candidates_) {
      if (candidate.backend == entry.server) {
        ++candidate.idle;
        known = true;
        break;
      }
    }
    if (!known) {
      candidates_.push_back({entry.server, entry.slot, 1});
      best_idle_.push_back(handle);
    }
  }
  if (candidates_.empty()) return std::nullopt;
  const std::optional<size_t> chosen = policy_->Pick(candidates_, failed_servers, BalanceNow());
  if (!chosen) return std::nullopt;
  const SlotPool::Handle handle = best_idle_[*chosen];
  if (pool.Acquire(handle)) return handle;
  // Unreachable: it was idle a moment ago under the same pool lock. Keep the policy's books
  // straight anyway.
  policy_->Finish(
      {candidates_[*chosen].backend, balance::Result::kIgnored, {}, std::nullopt, BalanceNow()});
  return std::nullopt;
}

void BalancedSelection::OnOutcome(const AttemptOutcome& outcome) {
  balance::Outcome finished;
  finished.backend = outcome.server;
  finished.result = ToBalanceResult(outcome.code);
  finished.latency = outcome.latency;
  finished.load = outcome.load;
  finished.now = BalanceNow();
  base::MutexLock lock(mu_);
  policy_->Finish(finished);
}

std::optional<balance::Explanation> BalancedSelection::Explain() const {
  const balance::Time now = BalanceNow();
  base::MutexLock lock(mu_);
  return policy_->Explain(now);
}

}  // namespace railyard::rpc
