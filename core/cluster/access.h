// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/rpc/endpoint.h"
#include "core/rpc/status.h"
#include "core/rpc/tls.h"

namespace railyard::cluster {

// TLS to the admin services as an operator asks for it on a command line. Given fields override
// a cluster file's admin_tls block; `on` (or any field) turns TLS on where the file does not.
struct TlsFlags {
  bool on = false;
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  std::string server_name;

  bool given() const {
    return on || !ca_file.empty() || !cert_file.empty() || !key_file.empty() ||
           !server_name.empty();
  }
};

// The admin TLS settings: the cluster file's block (nullopt: none) with `flags` applied on top.
std::optional<rpc::TlsClientOptions> ApplyTlsFlags(const TlsFlags& flags,
                                                   std::optional<rpc::TlsClientOptions> from_file);

// How an operator names a cluster: a cluster file, admin addresses, a token and TLS.
struct AccessRequest {
  std::string cluster_file;
  std::vector<std::string> nodes;  // Admin addresses host:port, after the file's nodes.
  std::string token;               // Wins over token_file and $RAILYARD_TOKEN.
  std::string token_file;
  TlsFlags tls;
};

// One node to reach: its name (the cluster file's, else its address) and admin address.
struct NodeTarget {
  std::string name;
  rpc::Endpoint admin;
};

// Everything a tool needs to talk to a cluster's admin services.
struct ClusterAccess {
  std::vector<NodeTarget> nodes;
  std::string token;  // Empty: none (viewer access on nodes without tokens).
  std::optional<rpc::TlsClientOptions> tls;
  std::string restart_command;  // The cluster file's (config.Cluster); empty without one.
};

// Resolves a request. INVALID_ARGUMENT with a message for the operator when the cluster file
// cannot be read, an address is not host:port, the token file cannot be read or holds no token,
// or no node is named at all.
rpc::Status ResolveAccess(const AccessRequest& request, ClusterAccess* out);

// The admin token a client presents: `flag` if set, else the first token in `file` (read as
// the node reads its token files), else $RAILYARD_TOKEN, else none. An unreadable or empty file
// is INVALID_ARGUMENT.
rpc::Status ResolveAdminToken(const std::string& flag, const std::string& file, std::string* token);

}  // namespace railyard::cluster
