// SPDX-License-Identifier: Apache-2.0
#include "app/railyardctl/sim_command.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <memory>

#include "app/railyardctl/admin_commands.h"
#include "core/balance/policy.h"
#include "core/sim/report.h"
#include "core/sim/scenario.h"
#include "core/sim/simulator.h"
#include "core/trace/recording_writer.h"

namespace railyard::ctl {

namespace {

constexpr balance::PolicyKind kAllPolicies[] = {
    balance::PolicyKind::kLowestSlot, balance::PolicyKind::kRoundRobin,
    balance::PolicyKind::kLeastLoaded, balance::PolicyKind::kWeighted,
    balance::PolicyKind::kAdaptive};

bool ParsePolicies(const std::string& text, std::vector<balance::PolicyKind>* out) {
  if (text == "all") {
    out->assign(std::begin(kAllPolicies), std::end(kAllPolicies));
    return true;
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string name = text.substr(start, comma - start);
    const std::optional<balance::PolicyKind> kind = balance::ParsePolicyKind(name);
    if (!kind) {
      std::fprintf(stderr,
                   "railyardctl sim: unknown policy '%s' (expected all, or a comma-separated list "
                   "of lowest-slot, round-robin, least-loaded, weighted, adaptive)\n",
                   name.c_str());
      return false;
    }
    out->push_back(*kind);
    start = comma + 1;
  }
  return true;
}

}  // namespace

CLI::App* AddSimCommand(CLI::App& app, SimCommandOptions& o) {
  CLI::App* sim = app.add_subcommand(
      "sim", "Simulate scenarios under each balancing policy and compare (see docs/scenarios.md)");
  sim->add_option("scenarios", o.scenarios, "Scenario files (.scn)")
      ->required()
      ->check(CLI::ExistingFile);
  sim->add_option("--policy", o.policies,
                  "all, or a comma-separated list of lowest-slot, round-robin, least-loaded, "
                  "weighted, adaptive")
      ->capture_default_str();
  sim->add_option("--seed", o.seed, "Seed for every random choice (default: each scenario's)")
      ->each([&o](const std::string&) { o.seed_given = true; });
  sim->add_flag("--json", o.json,
                "JSON lines (one object per scenario x policy) instead of a table");
  sim->add_option("--record", o.record,
                  "Write the simulated cluster to this recording for the console (needs exactly "
                  "one scenario and one policy)");
  sim->add_option("--duration-s", o.duration_s, "Simulated seconds, overriding the scenarios'")
      ->check(CLI::Range(0.001, 1e6));
  sim->add_option("--count-errors", o.count_errors,
                  "on or off: least-loaded counts recent errors as active (overrides scenarios)")
      ->check(CLI::IsMember({"on", "off"}));
  sim->add_option("--start-unix-ms", o.start_unix_ms,
                  "Recording time of the simulation's start (default: now)");
  return sim;
}

int RunSim(const SimCommandOptions& o) {
  std::vector<balance::PolicyKind> policies;
  if (!ParsePolicies(o.policies, &policies)) return kExitUsage;
  std::vector<sim::Scenario> scenarios;
  for (const std::string& path : o.scenarios) {
    sim::Scenario scenario;
    std::string error;
    if (!sim::LoadScenarioFile(path, &scenario, &error)) {
      std::fprintf(stderr, "railyardctl sim: %s\n", error.c_str());
      return kExitUsage;
    }
    scenarios.push_back(std::move(scenario));
  }
  std::unique_ptr<trace::RecordingWriter> writer;
  if (!o.record.empty()) {
    if (scenarios.size() != 1 || policies.size() != 1) {
      std::fprintf(stderr,
                   "railyardctl sim: --record needs exactly one scenario and one policy (got %zu "
                   "and %zu)\n",
                   scenarios.size(), policies.size());
      return kExitUsage;
    }
    trace::WriterOptions wo;
    wo.error_if_exists = true;
    wo.writer = std::string("railyardctl sim ") + RAILYARD_VERSION;
    if (trace::Status s = trace::RecordingWriter::Create(o.record, wo, &writer); !s.ok()) {
      std::fprintf(stderr, "railyardctl sim: %s\n", s.ToString().c_str());
      return kExitUsage;
    }
  }

  std::vector<sim::SimResult> results;
  for (const sim::Scenario& scenario : scenarios) {
    for (balance::PolicyKind policy : policies) {
      sim::SimOptions options;
      options.policy = policy;
      if (o.seed_given) options.seed = o.seed;
      if (o.duration_s > 0) {
        options.duration = sim::Duration(static_cast<int64_t>(o.duration_s * 1e9));
      }
      if (!o.count_errors.empty()) options.count_errors_as_active = o.count_errors == "on";
      options.recording = writer.get();
      options.start_unix_ms = o.start_unix_ms != 0
                                  ? o.start_unix_ms
                                  : std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count();
      sim::SimResult result;
      std::string error;
      if (!sim::Simulate(scenario, options, &result, &error)) {
        std::fprintf(stderr, "railyardctl sim: %s: %s\n", scenario.name.c_str(), error.c_str());
        return kExitFailed;
      }
      // Progress and the cost of the run go to stderr; stdout holds the results.
      std::fprintf(stderr,
                   "sim: %s / %s: %.0f simulated s in %.2f wall s (%.0f events, %.2fM events/s, "
                   "%.0fx real time)\n",
                   scenario.name.c_str(), result.policy.c_str(), result.duration_s, result.wall_s,
                   static_cast<double>(result.events), result.events_per_s / 1e6, result.sim_speed);
      if (o.json) {
        std::printf("%s\n", sim::FormatJsonLine(result).c_str());
        std::fflush(stdout);
      }
      results.push_back(std::move(result));
    }
  }
  if (writer) {
    if (trace::Status s = writer->Close(); !s.ok()) {
      std::fprintf(stderr, "railyardctl sim: %s\n", s.ToString().c_str());
      return kExitFailed;
    }
    std::fprintf(stderr, "sim: recording written to %s\n", o.record.c_str());
  }
  if (!o.json) std::printf("%s", sim::FormatTable(results).c_str());
  return kExitOk;
}

}  // namespace railyard::ctl
