// SPDX-License-Identifier: Apache-2.0
#pragma once

// A child process started by fork and exec and stopped by its PID: the one way railyard-node,
// the benchmarks' peers (redis-server, memcached) and kv_bench's own runs are started.

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace railyard::load {

// Whether `path` is a regular file this process may execute.
bool IsExecutableFile(const std::string& path);
// The first executable file named `name` in the directories of $PATH (empty entries skipped;
// /usr/local/bin:/usr/bin:/bin when $PATH is unset); false if there is none.
bool FindOnPath(const std::string& name, std::string* path);

// It is told to die with its parent (PR_SET_PDEATHSIG, SIGKILL), so a console, a test or a
// benchmark that crashes leaves none behind.
//
// Thread safety: one controlling thread. Ownership: the destructor kills (SIGKILL) and reaps a
// child still running.
class ChildProcess {
 public:
  struct Spawn {
    // argv[0] is the program: a path, or a name looked up on $PATH when it has no '/'.
    std::vector<std::string> argv;
    // The file executed instead of argv[0], which the child then sees only as its name (e.g.
    // "/proc/self/exe" to run this program again). Empty: argv[0].
    std::string program;
    // Become the child's stdout and stderr; -1: this process's. Still the caller's to close.
    int stdout_fd = -1;
    int stderr_fd = -1;
  };

  // How it ended.
  struct Exit {
    bool ended = false;   // Reaped; the rest is valid.
    bool exited = false;  // By exit: `code` is its status. Otherwise killed by `signal`.
    int code = -1;
    int signal = 0;
    bool killed_by_stop = false;  // Stop sent SIGKILL (it had not ended within the grace).
    // "exited with status 1", "killed by signal 9 (Killed)".
    std::string Describe() const;
  };

  // Starts it. Fails when argv is empty, the program is not found or cannot be executed (the
  // exec's own error, reported back through a pipe), or fork fails.
  static base::Status Start(const Spawn& spawn, std::unique_ptr<ChildProcess>* out);

  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // False once it has ended (reaped here).
  bool Running();
  // Waits until it ends, or until `deadline`; true if it ended.
  bool WaitUntil(std::chrono::steady_clock::time_point deadline);
  // SIGTERM, then SIGKILL if it has not ended within `grace` (0: SIGKILL at once), and reaps it.
  // Idempotent: later calls return how it ended.
  const Exit& Stop(std::chrono::milliseconds grace);

  pid_t pid() const { return pid_; }  // Valid until it is reaped.
  const Exit& exit() const { return exit_; }

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  void Reaped(int status);  // A waitpid status, or -1: ended, how unknown.

  pid_t pid_;
  Exit exit_;
};

}  // namespace railyard::load
