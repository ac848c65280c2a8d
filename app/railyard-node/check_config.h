// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "railyard/config.pb.h"

// `railyard-node --check-config` (like `nginx -t`): what would stop a node with this config (flags
// already applied) from starting, found without binding a port or opening the store. Returns one
// line per problem; empty when the config is usable.
//
// It checks the values (as the node reads them), that every token, certificate and key file
// can be read, that the data directory can be written (or made), and that the log file can be
// appended to. Permissions are those of the caller: run it as the service's user
// (`sudo -u railyard railyard-node --check-config ...`) to see what the service will see.
std::vector<std::string> ConfigProblems(const railyard::config::NodeConfig& config);
