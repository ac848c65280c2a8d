// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>

#include "core/node/node.h"
#include "core/rpc/status.h"
#include "core/rpc/tls.h"
#include "railyard/config.pb.h"

namespace railyard::node {

// Reads a text-format config file; errors name the file, line and column.
rpc::Status LoadNodeConfig(const std::string& path, config::NodeConfig* out);

// A listener's TLS settings; nullopt when no certificate is configured. INVALID_ARGUMENT if the
// block is half filled in (`what` names it in the message).
rpc::Status TlsOptionsFrom(const config::TlsConfig& config, const std::string& what,
                           std::optional<rpc::TlsServerOptions>* out);
// Turns a config (already merged with command-line overrides) into node options.
rpc::Status NodeOptionsFrom(const config::NodeConfig& config, NodeOptions* out);

}  // namespace railyard::node
