// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace railyard::ctl {

struct LabCommandOptions {
  std::string dir = "railyard-lab";
  int replicas = 2;
  bool loopback = false;  // Loopback addresses even as root.
  size_t memtable_entries = 20000;
  int clients = 0;  // Load clients, each a host of its own.
  int client_subset = 8;
  double client_rate = 20;
  std::string host;  // The host an action or a cut is for.
  bool loud = false;
  bool isolate = false;
};

// `railyardctl lab up|down|status|kill|stop|start|restart|pause|resume|cut|heal` (core/load/lab.h).
CLI::App* AddLabCommand(CLI::App& app, LabCommandOptions& options);
int RunLab(CLI::App& lab, const LabCommandOptions& options);

}  // namespace railyard::ctl
