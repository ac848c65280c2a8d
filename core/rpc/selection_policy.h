// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "core/balance/policy.h"
#include "core/base/load_report.h"
#include "core/rpc/slot_pool.h"
#include "core/rpc/status.h"

namespace railyard::rpc {

// The one load report across core/ (balance uses the same type).
using base::LoadReport;

// What a policy learns after each attempt.
struct AttemptOutcome {
  uint32_t server = 0;
  Code code = Code::kOk;
  std::chrono::nanoseconds latency{0};
  std::optional<LoadReport> load;  // Absent when no response arrived.
};

// The seam through which rpc::Client chooses a pooled connection for each attempt. Policies other
// than Boxcar's lowest slot (round robin, least loaded, weighted, adaptive) plug in here.
//
// Thread safety: Client calls Pick with its pool lock held and never concurrently; OnOutcome is
// called without that lock and may run concurrently with itself and with Pick.
class SelectionPolicy {
 public:
  virtual ~SelectionPolicy() = default;
  virtual std::string_view name() const = 0;
  // Acquires (marks busy) one idle member of `pool` and returns it, or nullopt to fail fast.
  // `failed_servers` lists the servers this call already failed on (empty on a first attempt);
  // a retry should prefer any other server while one is available.
  virtual std::optional<SlotPool::Handle> Pick(SlotPool& pool,
                                               std::span<const uint32_t> failed_servers) = 0;
  virtual void OnOutcome(const AttemptOutcome& /*outcome*/) {}
  // What the policy knows about each server (backend ids are server indices), for telemetry;
  // nullopt for policies that keep no state. May run concurrently with Pick and OnOutcome.
  virtual std::optional<balance::Explanation> Explain() const { return std::nullopt; }
};

// Boxcar: always the idle connection with the lowest server slot, so the Nth concurrent request
// uses the Nth best connection. Plain Boxcar (balance::LowestSlotPolicy, the client's default,
// also compares the two best slots by observed latency and errors), kept here as a stateless fast
// path: one find-first-set over the pool's idle bitmap under the
// pool lock, with no candidate list, no second lock and no per-server state, and so also no
// per-backend active limit and nothing to explain in telemetry. Set it as ClientOptions::policy
// where a pool is small enough that the limit cannot bind and a pick must cost nothing.
class LowestSlotFastPath final : public SelectionPolicy {
 public:
  std::string_view name() const override { return "lowest-slot"; }
  std::optional<SlotPool::Handle> Pick(SlotPool& pool,
                                       std::span<const uint32_t> failed_servers) override {
    return pool.AcquireLowestIdle(failed_servers);
  }
};

}  // namespace railyard::rpc
