// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/load/child_process.h"
#include "core/rpc/endpoint.h"
#include "core/rpc/status.h"

namespace railyard::load {

// Where railyard-node is: $RAILYARD_NODE_BINARY if set, else beside the running program (as
// built, and as packaged in /usr/bin), else on $PATH. NOT_FOUND naming every place looked.
rpc::Status FindNodeBinary(std::string* path);

// A railyard-node child process, stopped by its PID. It is told to die with its parent
// (PR_SET_PDEATHSIG), so a crashed console, railyardctl or test leaves none behind. Shared by the
// demo cluster and the end-to-end tests.
//
// Thread safety: one controlling thread.
class NodeProcess {
 public:
  // How a process ended.
  struct Exit {
    bool on_its_own = false;  // It exited (not killed by us) within the grace period.
    int code = -1;            // Its exit code when it exited normally, else -1.
  };

  // Starts `binary args...`, its stderr (the log) appended to `log_path`, and waits up to
  // `timeout` for the line "LISTEN <service> ADMIN <admin>" the node prints once it listens. On
  // failure the process is killed and the error quotes the end of its log.
  static rpc::Status Start(const std::string& binary, const std::vector<std::string>& args,
                           const std::string& log_path, std::chrono::milliseconds timeout,
                           std::unique_ptr<NodeProcess>* out);
  ~NodeProcess();  // Stop(0): SIGKILL if still running.
  NodeProcess(const NodeProcess&) = delete;
  NodeProcess& operator=(const NodeProcess&) = delete;

  // SIGTERM (the node drains), then SIGKILL if it has not exited within `grace` (0: SIGKILL at
  // once). Waits for it. Idempotent: later calls return the first one's answer.
  Exit Stop(std::chrono::milliseconds grace);
  // False once the process has exited (reaped here).
  bool Running();

  pid_t pid() const { return child_->pid(); }  // Valid until it is reaped.
  const rpc::Endpoint& service() const { return service_; }
  const rpc::Endpoint& admin() const { return admin_; }

 private:
  NodeProcess() = default;

  std::unique_ptr<ChildProcess> child_;
  int stdout_fd_ = -1;
  rpc::Endpoint service_, admin_;
};

}  // namespace railyard::load
