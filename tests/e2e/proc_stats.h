// SPDX-License-Identifier: Apache-2.0
#pragma once

// What Linux's /proc says about another process: its open descriptors and its resident memory.
// The soak run compares these before and after hours of traffic to find leaks.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace railyard::e2e {

struct FdCounts {
  int total = 0;
  // Descriptors that are TCP connections (ESTABLISHED or CLOSE_WAIT), i.e. peers, not the
  // process's own files, listeners, pipes or event descriptors.
  int connections = 0;
  int own() const { return total - connections; }
};

// Counts the entries of /proc/<pid>/fd; nullopt if the process is gone or unreadable. If
// `targets` is given, it receives what each descriptor points at ("socket:[123]", a path, ...).
std::optional<FdCounts> CountFds(int64_t pid, std::vector<std::string>* targets = nullptr);

// Resident memory in KiB from /proc/<pid>/status.
struct MemoryKib {
  int64_t rss = 0;       // VmRSS: everything resident.
  int64_t rss_anon = 0;  // RssAnon: heap and stacks, what a leak grows.
  int64_t rss_file = 0;  // RssFile: mapped files (segments, indexes); the kernel may drop them.
  int64_t hwm = 0;       // VmHWM: the highest VmRSS the process has had.
};

// Nullopt if the process is gone or unreadable.
std::optional<MemoryKib> ReadMemory(int64_t pid);

}  // namespace railyard::e2e
