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
rpc::Status LoadCluster(const std::string& path, config::Cluster* out);

// A listener's TLS settings; nullopt when no certificate is configured. INVALID_ARGUMENT if the
// block is half filled in (`what` names it in the message).
rpc::Status TlsOptionsFrom(const config::TlsConfig& config, const std::string& what,
                           std::optional<rpc::TlsServerOptions>* out);
// The admin client side of a cluster file; nullopt when it has no admin_tls block.
std::optional<rpc::TlsClientOptions> ClientTlsOptionsFrom(const config::Cluster& cluster);

// Turns a config (already merged with command-line overrides) into node options.
rpc::Status NodeOptionsFrom(const config::NodeConfig& config, NodeOptions* out);

// The admin token a client (railyardctl, the console) presents: `flag` if set, else the first
// token in `file` (read as the node reads its token files: trailing CR and spaces cut, # lines
// skipped), else $RAILYARD_TOKEN, else none. An unreadable or empty file is an error.
rpc::Status ResolveAdminToken(const std::string& flag, const std::string& file, std::string* token);

}  // namespace railyard::node
