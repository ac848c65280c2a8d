// SPDX-License-Identifier: Apache-2.0
#pragma once

// How an operator restarts one node: a command line with {name} standing for the node's name
// ("ssh {name} sudo systemctl restart railyard-node", or the lab's own "railyardctl lab restart
// {name} --dir D", which `railyardctl lab up` writes into its cluster file). Run by /bin/sh, in a
// process group of its own, for a rolling restart (cluster/rolling_restart.h) in railyardctl and
// the console.

#include <chrono>
#include <string>

#include "core/rpc/status.h"

namespace railyard::cluster {

// `word` as one shell word: as it is if plain (letters, digits, '.', '_', '-', '/', ':', '+',
// '@', '='), else single-quoted.
std::string ShellWord(const std::string& word);

// `command` with each {name} replaced by `node`, as one shell word (ShellWord), so that no
// node name runs as shell code.
std::string RestartCommandLine(const std::string& command, const std::string& node);

// Runs RestartCommandLine(command, node) and waits for it, at most `timeout` (then its whole
// process group is killed). OK if it exited 0. `output` (may be null) gets what it wrote to
// stdout and stderr, its last 4 KiB. Failure (INTERNAL; DEADLINE_EXCEEDED after the timeout) names
// the command, how it ended and its last line of output.
rpc::Status RunRestartCommand(const std::string& command, const std::string& node,
                              std::chrono::milliseconds timeout, std::string* output);

}  // namespace railyard::cluster
