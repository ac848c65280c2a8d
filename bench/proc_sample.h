// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

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
// The thread ids of process `pid`, from /proc/PID/task; empty if it is gone.
std::vector<pid_t> ThreadsOf(pid_t pid);
// The fields of a /proc stat line after the command name (which may hold spaces and ')'): the
// state letter first. Empty for a line that is not one.
std::string StatFields(const std::string& stat_line);
// Thread `tid` of `pid`: its state letter ('R' running or runnable, 'S' asleep, 'D' in
// uninterruptible sleep, ...), '?' if it cannot be read (it exited).
char ThreadState(pid_t pid, pid_t tid);
// This process's CPU time so far (user + system, getrusage), in seconds.
double SelfCpuSeconds();

}  // namespace railyard::bench
