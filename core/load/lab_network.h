// SPDX-License-Identifier: Apache-2.0
#pragma once

// The lab's plumbing (lab.h): iproute2's ip, tc and bridge, and starting a process inside a
// network namespace, detached from the caller so that it outlives the command that started it.

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/rpc/status.h"

namespace railyard::load {

// Runs `argv` (argv[0] looked up on PATH) and waits for it; INTERNAL naming the command and
// quoting its stderr if it fails or cannot be run.
rpc::Status RunTool(const std::vector<std::string>& argv);

// Whether this process may make network namespaces (root, and `ip netns add` works); if not,
// why, in a few words.
bool NamespacesAvailable(std::string* why);

// Starts `binary args...` in its own session (so that it outlives this process and no terminal
// signal reaches it), inside network namespace `netns` (/run/netns/NAME; empty: this process's),
// stdin from /dev/null, stdout to `out_path` and stderr appended to `log_path`. The child is this
// process's until it exits; reap it with waitpid, or let init adopt it.
rpc::Status SpawnDetached(const std::string& netns, const std::string& binary,
                          const std::vector<std::string>& args, const std::string& out_path,
                          const std::string& log_path, pid_t* pid);

// Whether `pid` runs a program whose command line holds `needle` (a recorded PID the kernel
// gave to another program since is not ours to signal).
bool ProcessRuns(pid_t pid, const std::string& needle);

}  // namespace railyard::load
