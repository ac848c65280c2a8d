#pragma once

#include <chrono>
#include <cstddef>

namespace CLI {
class App;
}

namespace railyard::ctl {

struct DemoOptions {
  size_t servers = 3;
  size_t clients = 3;
  size_t concurrency = 6;  // Concurrent callers per client.
  size_t pool_size = 8;
  int service_time_us = 500;
  double slow_factor = 2.0;  // The last server runs this many times slower (1: all alike).
  int interval_ms = 1000;
  int duration_s = 0;  // 0: until SIGINT or SIGTERM.
};

// Registers `railyardctl demo`; the returned subcommand is set when the user chose it.
CLI::App* AddDemoCommand(CLI::App& app, DemoOptions& options);

// Servers and load clients on loopback, printing per-server request rates and slot tables until
// interrupted or `duration_s` passes. Returns a process exit code.
int RunDemo(const DemoOptions& options);

}  // namespace railyard::ctl
