// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/balance/policy.h"
#include "core/sim/scenario.h"

namespace railyard::trace {
class RecordingWriter;
}

namespace railyard::sim {

struct SimOptions {
  balance::PolicyKind policy = balance::PolicyKind::kLowestSlot;
  std::optional<uint64_t> seed;                // Default: the scenario's.
  std::optional<Duration> duration;            // Default: the scenario's.
  std::optional<bool> count_errors_as_active;  // Default: the scenario's.
  // Lowest slot: how many best-slot backends it compares (balance::PolicyOptions::slot_choices);
  // 1 is plain Boxcar. Default: the policy's.
  std::optional<uint32_t> slot_choices;
  // Failing answers in a row after which a client disposes of a connection
  // (balance::AnswerHealth); 0 never, as a client without the rule would. Default: rpc::Client's.
  std::optional<uint32_t> failed_answers_limit;
  // When set, one admin::Telemetry snapshot per live backend (with the second's latency) and one
  // of all client pools (node "clients") at virtual time 0 and every simulated second go here,
  // plus the scenario's events; times are start_unix_ms + virtual time, so the recording's span
  // starts at the scenario's time 0. The simulator does not close the writer.
  trace::RecordingWriter* recording = nullptr;
  int64_t start_unix_ms = 0;
};

struct BackendResult {
  std::string name;
  uint64_t attempts = 0;        // Attempts sent to it (first tries and retries).
  uint64_t successes = 0;       // Attempts it answered successfully.
  double utilization = 0;       // Busy time / (capacity x duration).
  double mean_connections = 0;  // Open connections to it, averaged over the per-second samples.
  uint32_t clients = 0;         // Distinct clients that connected to it during the run.
};

struct SimResult {
  std::string scenario;
  std::string policy;
  uint64_t seed = 0;
  double duration_s = 0;
  uint32_t clients = 0;
  uint32_t backends = 0;

  uint64_t requests = 0;   // Requests the clients issued.
  uint64_t successes = 0;  // Requests that succeeded (after retries, within their deadline).
  uint64_t rejected = 0;   // Failed at once: no idle pooled connection, or the policy failed fast.
  uint64_t timeouts = 0;   // Attempts that reached their timeout.
  uint64_t errors = 0;     // Attempts that failed otherwise (errors, resets, refusals).
  uint64_t retries = 0;    // Attempts after the first.
  uint64_t retries_refused = 0;  // Retries the budget did not allow.
  uint64_t connects = 0;
  uint64_t connect_failures = 0;

  double success_rate = 0;
  // Latency of successful requests, from issue to answer (retries included), in milliseconds.
  double p50_ms = 0;
  double p99_ms = 0;
  double p999_ms = 0;
  double retries_per_request = 0;
  double load_spread = 0;      // Max over mean of the backends' utilization.
  double connections_min = 0;  // Min and max over backends of BackendResult::mean_connections.
  double connections_max = 0;

  std::vector<BackendResult> per_backend;
  // attempts_by_second[s][b]: attempts sent to backend b during simulated second s.
  std::vector<std::vector<uint32_t>> attempts_by_second;

  // Cost of the run itself (not part of what a seed determines).
  uint64_t events = 0;
  double wall_s = 0;
  double events_per_s = 0;
  double sim_speed = 0;  // Simulated seconds per wall second.
};

// Runs `scenario` under one policy. Deterministic: the same scenario, options and seed give the
// same result (apart from the wall-clock fields). Returns false with `error` only when the
// recording cannot be written.
bool Simulate(const Scenario& scenario, const SimOptions& options, SimResult* result,
              std::string* error);

}  // namespace railyard::sim
