// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "app/railyardctl/admin_commands.h"

namespace railyard::ctl {

struct RollingRestartCommandOptions {
  AdminTarget target;              // The cluster, with an operator token.
  std::vector<std::string> nodes;  // --only: these, in order; empty: all, the updater last.
  std::string lab_dir;             // --lab: restart through the lab (core/load/lab.h).
  std::string restart_command;     // --restart-command: run by /bin/sh, {name} replaced.
  std::string drain_timeout = "60s";
  std::string serve_timeout = "120s";
  bool allow_last_replica = false;
};

// `railyardctl rolling-restart` (core/cluster/rolling_restart.h).
CLI::App* AddRollingRestartCommand(CLI::App& app, RollingRestartCommandOptions& options);
int RunRollingRestart(const RollingRestartCommandOptions& options);

}  // namespace railyard::ctl
