// SPDX-License-Identifier: Apache-2.0
#pragma once

// A node's /metrics page: the figures of its admin.Telemetry snapshot (the same numbers the
// console and railyardctl show), plus what only Prometheus wants (cumulative latency buckets and
// answers by status code) and the process and disk figures, in the Prometheus text format 0.0.4.

#include <optional>
#include <string>
#include <vector>

#include "core/base/method_stats.h"
#include "core/node/process_metrics.h"
#include "railyard/admin.pb.h"

namespace railyard::node {

struct NodeMetricsInput {
  admin::Telemetry telemetry;
  std::vector<base::MethodStats::Totals> methods;
  std::optional<ProcessFigures> process;
  std::optional<DiskFigures> disk;  // The data directory's file system.
};

// Every series is named railyard_... (or process_... for the standard process figures), in base
// units (seconds, bytes). Families whose source is absent (storage while starting, a replica's
// figures on an updater) are left out rather than reported as zero.
std::string RenderNodeMetrics(const NodeMetricsInput& input);

}  // namespace railyard::node
