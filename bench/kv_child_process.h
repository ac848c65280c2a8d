// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace railyard::bench {

struct ChildResult {
  bool started = false;
  bool timed_out = false;  // Killed with SIGKILL at the deadline.
  bool exited = false;     // Ended by exit (exit_code valid) rather than by a signal.
  int exit_code = -1;
  int signal = 0;
  std::string error;   // Why it could not be started or waited for.
  std::string output;  // Its stdout, at most kMaxChildOutputBytes of it.

  bool ok() const { return started && !timed_out && exited && exit_code == 0; }
  // "exited with status 1", "killed by signal 9 (Killed)", ...: for diagnostics.
  std::string Describe() const;
};

inline constexpr size_t kMaxChildOutputBytes = 1 << 20;

// Runs this program again (/proc/self/exe) with `args` after argv[0], sharing our stderr and
// capturing its stdout, and waits for it to end. At `timeout` it is killed (SIGKILL) and reaped.
// Blocks the calling thread throughout.
ChildResult RunSelf(const std::vector<std::string>& args, std::chrono::milliseconds timeout);

}  // namespace railyard::bench
