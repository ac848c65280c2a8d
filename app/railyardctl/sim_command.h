// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace railyard::ctl {

struct SimCommandOptions {
  std::vector<std::string> scenarios;  // Scenario files.
  std::string policies = "all";        // "all" or a comma-separated list of policy names.
  uint64_t seed = 0;
  bool seed_given = false;
  bool json = false;
  std::string record;         // Write the run to this recording (one scenario, one policy).
  double duration_s = 0;      // 0: each scenario's own duration.
  std::string count_errors;   // "", "on" or "off": overrides the scenarios' count-errors.
  int64_t start_unix_ms = 0;  // Recording time of virtual time 0; 0: now.
};

CLI::App* AddSimCommand(CLI::App& app, SimCommandOptions& options);
// Runs every scenario under every chosen policy and prints a table (or JSON lines). Exit code 0,
// or kExitUsage for a bad scenario or flag (the message names the file and line), kExitFailed if
// the recording cannot be written.
int RunSim(const SimCommandOptions& options);

}  // namespace railyard::ctl
