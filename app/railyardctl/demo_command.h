#pragma once

#include <cstddef>
#include <string>

namespace CLI {
class App;
}

namespace railyard::ctl {

struct DemoOptions {
  size_t nodes = 3;
  size_t clients = 3;
  size_t concurrency = 6;  // Calls in flight per client.
  size_t pool_size = 8;
  double read_fraction = 0.8;
  uint64_t keys = 200000;
  size_t memtable_entries = 20000;  // Small, so flushes and compactions happen while you watch.
  int interval_ms = 1000;
  int duration_s = 0;    // 0: until SIGINT or SIGTERM.
  std::string data_dir;  // Empty: a temporary folder, removed at the end.
};

// Registers `railyardctl demo`; the returned subcommand is set when the user chose it.
CLI::App* AddDemoCommand(CLI::App& app, DemoOptions& options);

// A local cluster of docstore nodes and load clients on loopback, printing each node's rate,
// slot table and storage and each client's pool until interrupted or `duration_s` passes.
int RunDemo(const DemoOptions& options);

}  // namespace railyard::ctl
