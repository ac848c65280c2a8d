// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>

#include "core/rpc/status.h"
#include "core/rpc/tls.h"
#include "railyard/config.pb.h"

namespace railyard::cluster {

// Reads a cluster file (railyard.config.Cluster, text format). INVALID_ARGUMENT naming the file
// when it cannot be parsed, has no nodes, or a node has no admin address.
rpc::Status LoadClusterFile(const std::string& path, config::Cluster* out);

// The admin client side of a cluster file; nullopt when it has no admin_tls block.
std::optional<rpc::TlsClientOptions> AdminTlsOf(const config::Cluster& cluster);
// A client TLS block of a config file as client options.
rpc::TlsClientOptions ClientTlsFrom(const config::ClientTlsConfig& config);

}  // namespace railyard::cluster
