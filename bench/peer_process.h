// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/load/child_process.h"

namespace railyard::bench {

// A peer server the benchmarks compare against (redis-server, memcached), run as a child on
// 127.0.0.1 and stopped by its PID. It is told to die with its parent (PR_SET_PDEATHSIG), so a
// benchmark that crashes leaves none behind.
//
// Thread safety: one controlling thread.
class PeerProcess {
 public:
  // A port on 127.0.0.1 the kernel had free a moment ago (bound to port 0, then closed). Another
  // process may take it before the peer does; Start then fails and the caller tries again.
  static uint16_t FreeLoopbackPort();

  // Runs `argv` (argv[0] looked up on $PATH), its stdout and stderr appended to `log_path`, and
  // waits up to `timeout` until 127.0.0.1:`port` accepts a connection. On failure the process is
  // killed and the error (in `*error`) quotes the end of its log; null is returned.
  static std::unique_ptr<PeerProcess> Start(const std::vector<std::string>& argv, uint16_t port,
                                            const std::string& log_path,
                                            std::chrono::milliseconds timeout, std::string* error);
  ~PeerProcess();  // Stop().
  PeerProcess(const PeerProcess&) = delete;
  PeerProcess& operator=(const PeerProcess&) = delete;

  // SIGTERM, then SIGKILL after 5 s; waits for it. Idempotent.
  void Stop();
  pid_t pid() const { return child_->pid(); }  // Valid until it is reaped.
  uint16_t port() const { return port_; }

 private:
  PeerProcess(std::unique_ptr<load::ChildProcess> child, uint16_t port)
      : child_(std::move(child)), port_(port) {}

  std::unique_ptr<load::ChildProcess> child_;
  uint16_t port_;
};

}  // namespace railyard::bench
