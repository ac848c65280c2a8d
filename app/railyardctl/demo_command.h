// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include "core/load/demo_cluster.h"

namespace CLI {
class App;
}

namespace railyard::ctl {

struct DemoOptions {
  load::DemoClusterOptions cluster;  // The same cluster the console's --demo starts.
  int interval_ms = 1000;
  int duration_s = 0;           // 0: until SIGINT or SIGTERM.
  std::string subset = "none";  // --subset: none, random or deterministic.
};

// Registers `railyardctl demo`; the returned subcommand is set when the user chose it.
CLI::App* AddDemoCommand(CLI::App& app, DemoOptions& options);

// A local cluster of docstore nodes and load clients on loopback, printing each node's rate,
// slot table and storage and each client's pool until interrupted or `duration_s` passes.
int RunDemo(const DemoOptions& options);

}  // namespace railyard::ctl
