// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <string>

#include "core/node/node.h"
#include "railyard/config.pb.h"

// The settings a node runs with, after the config file, the flags and the defaults, in one line
// for its start-up log: listeners and their TLS, data directory, sync mode, role, where its tokens
// come from (file names and counts, never a token), grace, cache and log level. An operator reads
// what the node does, not what they think they configured.
std::string DescribeEffectiveSettings(const railyard::node::NodeOptions& options,
                                      const railyard::config::NodeConfig& config,
                                      std::chrono::milliseconds grace);
