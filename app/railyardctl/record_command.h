// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include "app/railyardctl/admin_commands.h"
#include "core/cluster/prometheus_recording.h"

namespace CLI {
class App;
}

namespace railyard::ctl {

struct RecordOptions {
  AdminTarget target;
  std::string out;
  int interval_ms = 1000;
  double duration_s = 0;  // 0: until Ctrl-C or SIGTERM.
  // Into a log (stderr not a terminal), a progress line at most this often; a terminal gets one
  // line redrawn every round.
  double progress_every_s = 10;
  // Set ("15m", "1h", "90s", "2d"): first the past from each node's flight recorder; then, with
  // --duration-s, live polling for that long.
  std::string since;
  // Set (--prometheus URL): the range from that server instead of the nodes.
  cluster::PrometheusSourceSpec prometheus;
};

struct InspectOptions {
  std::string file;
  bool json = false;  // The description as one JSON object.
};

struct WatchOptions {
  AdminTarget target;
  int interval_ms = 1000;
  int count = 0;      // Refreshes before exiting; 0: until Ctrl-C.
  bool json = false;  // Each refresh as JSON lines, one per node, instead of a redrawn table.
};

CLI::App* AddRecordCommand(CLI::App& app, RecordOptions& options);
CLI::App* AddInspectCommand(CLI::App& app, InspectOptions& options);
CLI::App* AddWatchCommand(CLI::App& app, WatchOptions& options);

// Polls every node's telemetry into a recording (core/trace), commands seen as events.
int RunRecord(const RecordOptions& options);
// Prints a recording's nodes, time span, snapshot count and events.
int RunInspect(const InspectOptions& options);
// The status table, refreshed.
int RunWatch(const WatchOptions& options);

}  // namespace railyard::ctl
