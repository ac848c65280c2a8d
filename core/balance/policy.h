// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/load_report.h"

namespace railyard::balance {

// Policies never read a clock: the caller passes `now`, so the real client drives them with
// steady_clock and the simulator with its virtual clock, and a run is repeatable for a seed.
using Duration = std::chrono::nanoseconds;
using Time = std::chrono::nanoseconds;  // Since an arbitrary epoch chosen by the caller.

using BackendId = uint32_t;

// The one load report across core/ (rpc::Server produces it).
using base::LoadReport;

enum class Result {
  kSuccess,
  kError,     // The backend failed the request or the connection broke (a health signal).
  kTimeout,   // No answer within the deadline (a health and a latency signal).
  kRejected,  // The backend refused it: lame duck, overloaded (retry elsewhere; not sick).
  kIgnored,   // An application error that says nothing about the backend's health.
};

// How an attempt that Pick started ended.
struct Outcome {
  BackendId backend = 0;
  Result result = Result::kSuccess;
  Duration latency{0};
  std::optional<LoadReport> load;  // Absent when no response arrived.
  Time now{0};
};

// A backend the client could send to right now: it has at least one idle pooled connection.
struct Candidate {
  BackendId backend = 0;
  uint32_t best_slot = 0;  // Lowest server slot among its idle connections (Boxcar's rank).
  uint32_t idle = 0;       // Idle connections to it.
};

// What a policy knows about one backend, for telemetry and the console.
struct BackendExplanation {
  BackendId backend = 0;
  double weight = 0;         // Share of new requests it would get now, 0..1 (policy-specific).
  uint32_t active = 0;       // Attempts in flight from this client.
  uint32_t limit = 0;        // Active-request limit now (flow control or adaptive limiter).
  double success_rate = 1;   // Decaying success rate, where the policy tracks one.
  double recent_errors = 0;  // Decaying error count, where the policy tracks one.
  bool ejected = false;      // Currently not chosen except as a probe.
  std::string note;          // Short, human: "report expired", "at limit", ...
};

struct Explanation {
  std::string policy;
  std::vector<BackendExplanation> backends;  // Backends the policy has seen, by id.
};

// Chooses a backend for each attempt. One instance per client.
//
// Contract: every Pick that returns a value starts an attempt on that backend, which the caller
// ends with exactly one Finish. The policy counts it as active in between and never lets a
// backend exceed `PolicyOptions::max_active_per_backend` active attempts (flow control).
//
// Thread safety: none; the caller serialises all calls.
class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string_view name() const = 0;

  // `candidates` are the backends with an idle connection, best slot first; `avoid` lists the
  // backends this request already failed on, to skip while any other candidate is acceptable.
  // Returns an index into `candidates`, or nullopt to fail fast (all at their limit).
  virtual std::optional<size_t> Pick(std::span<const Candidate> candidates,
                                     std::span<const BackendId> avoid, Time now) = 0;
  virtual void Finish(const Outcome& outcome) = 0;

  virtual Explanation Explain(Time now) const = 0;
};

enum class PolicyKind {
  kLowestSlot,   // Boxcar: the lowest idle slot, the best two compared by cost (the default).
  kRoundRobin,   // Each backend in turn.
  kLeastLoaded,  // Fewest active requests, counting recent errors as active.
  kWeighted,     // Weighted round robin from load reports.
  kAdaptive,     // Success rate cubed, weighted random order, concurrency limiter per backend.
};

struct PolicyOptions {
  PolicyKind kind = PolicyKind::kLowestSlot;
  // Flow control: a backend never has more than this many attempts in flight from one client. The
  // seed's 100, for policies chosen explicitly and for the simulator (whose scenarios set their
  // own). A Boxcar connection carries one request, so a limit at or above a client's pool can never
  // bind: rpc::Client's default policy sizes its limit from the pool instead (rpc/client.h).
  uint32_t max_active_per_backend = 100;
  uint64_t seed = 1;  // For every random choice the policy makes.
  // Lowest slot: how many of the best-slot backends it compares by what it saw of their answers
  // (latency, errors, its own active attempts); 1 is plain Boxcar. A seen penalty fades with
  // `latency_fade_half_life` once the backend is no longer chosen.
  uint32_t slot_choices = 2;
  Duration latency_fade_half_life = std::chrono::seconds(1);
  // Least loaded: count recent errors as active requests (false reproduces the sinkhole).
  bool count_errors_as_active = true;
  Duration error_half_life = std::chrono::seconds(5);
  // Weighted: a report older than this no longer counts; weights never fall below the floor.
  Duration report_ttl = std::chrono::seconds(10);
  double weight_floor = 0.05;  // Fraction of the mean weight.
  double error_penalty = 1.0;  // How much errors/s count against a backend.
  // Adaptive: half life of the success rate, and the floor that keeps a dead backend probeable.
  Duration success_half_life = std::chrono::seconds(5);
  double probe_floor = 0.0001;  // Divided by the number of backends, as in the seed.
  // Adaptive: weight = success rate to this power. The seed's cube gives a 50%-success backend
  // 0.125 / (0.125 + healthy peers) of the picks: 5.9% beside two healthy peers, 3% beside four.
  double success_exponent = 3.0;
};

// Parses "lowest-slot", "round-robin", "least-loaded", "weighted", "adaptive".
std::optional<PolicyKind> ParsePolicyKind(std::string_view name);
std::string_view PolicyKindName(PolicyKind kind);
std::unique_ptr<Policy> MakePolicy(const PolicyOptions& options);

}  // namespace railyard::balance
