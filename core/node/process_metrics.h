// SPDX-License-Identifier: Apache-2.0
#pragma once

// The process figures Prometheus' client libraries export under their standard names
// (process_cpu_seconds_total, ...), read from /proc/self, and the free space of the data
// directory's file system.

#include <cstdint>
#include <optional>
#include <string>

#include "railyard/admin.pb.h"

namespace railyard::node {

struct ProcessFigures {
  double cpu_seconds = 0;  // User plus system time.
  uint64_t resident_bytes = 0;
  uint64_t virtual_bytes = 0;
  uint64_t open_fds = 0;
  uint64_t max_fds = 0;           // The soft limit; 0 if unlimited or unknown.
  double start_time_seconds = 0;  // Since the Unix epoch.
};

// Nullopt where /proc is not there or unreadable (not Linux, a locked-down sandbox).
std::optional<ProcessFigures> ReadProcessFigures();

struct DiskFigures {
  uint64_t free_bytes = 0;  // Available to this (unprivileged) process.
  uint64_t size_bytes = 0;
  // As telemetry carries it (Telemetry.disk), which cluster::DiskFreeShare reads.
  admin::DiskSpace ToProto() const;
};

// The file system that holds `directory`; nullopt if it cannot be asked.
std::optional<DiskFigures> ReadDiskFigures(const std::string& directory);

}  // namespace railyard::node
