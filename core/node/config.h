#pragma once

#include <string>

#include "core/node/node.h"
#include "core/rpc/status.h"
#include "railyard/config.pb.h"

namespace railyard::node {

// Reads a text-format config file; errors name the file, line and column.
rpc::Status LoadNodeConfig(const std::string& path, config::NodeConfig* out);
rpc::Status LoadCluster(const std::string& path, config::Cluster* out);

// Turns a config (already merged with command-line overrides) into node options.
rpc::Status NodeOptionsFrom(const config::NodeConfig& config, NodeOptions* out);

}  // namespace railyard::node
