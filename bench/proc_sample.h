// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <sys/types.h>

namespace railyard::bench {

// One process's CPU time so far and its memory, from /proc/PID/stat and /proc/PID/status. CPU
// time comes in clock ticks (10 ms here): measure over seconds, not milliseconds.
struct ProcSample {
  bool ok = false;  // False: no such process (or /proc unreadable).
  double cpu_s = 0;
  double rss_mib = 0;
  double peak_mib = 0;
  // The resident set's parts: anonymous (heap, stacks, private maps) and file-backed (mapped
  // files' pages, which are the page cache and shared with it).
  double rss_anon_mib = 0;
  double rss_file_mib = 0;
};

ProcSample ReadProc(pid_t pid);
// This process's CPU time so far (user + system, getrusage), in seconds.
double SelfCpuSeconds();

}  // namespace railyard::bench
