// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/access.h"

#include <cstdlib>

#include "core/cluster/cluster_file.h"
#include "core/cluster/text_files.h"

namespace railyard::cluster {

std::optional<rpc::TlsClientOptions> ApplyTlsFlags(const TlsFlags& flags,
                                                   std::optional<rpc::TlsClientOptions> tls) {
  if (!flags.given()) return tls;
  if (!tls) tls.emplace();
  if (!flags.ca_file.empty()) tls->ca_file = flags.ca_file;
  if (!flags.cert_file.empty()) tls->cert_file = flags.cert_file;
  if (!flags.key_file.empty()) tls->key_file = flags.key_file;
  if (!flags.server_name.empty()) tls->server_name = flags.server_name;
  return tls;
}

rpc::Status ResolveAccess(const AccessRequest& request, ClusterAccess* out) {
  *out = {};
  std::optional<rpc::TlsClientOptions> file_tls;
  if (!request.cluster_file.empty()) {
    config::Cluster cluster;
    if (rpc::Status s = LoadClusterFile(request.cluster_file, &cluster); !s.ok()) return s;
    for (const config::ClusterMember& member : cluster.node()) {
      const auto endpoint = rpc::ParseEndpoint(member.admin());
      if (!endpoint) {
        return {rpc::Code::kInvalidArgument, request.cluster_file + ": node '" + member.name() +
                                                 "' has a bad admin address '" + member.admin() +
                                                 "'"};
      }
      out->nodes.push_back({member.name().empty() ? member.admin() : member.name(), *endpoint});
    }
    file_tls = AdminTlsOf(cluster);
    out->restart_command = cluster.restart_command();
  }
  for (const std::string& address : request.nodes) {
    const auto endpoint = rpc::ParseEndpoint(address);
    if (!endpoint) return {rpc::Code::kInvalidArgument, "'" + address + "' is not host:port"};
    out->nodes.push_back({address, *endpoint});
  }
  if (out->nodes.empty()) {
    return {rpc::Code::kInvalidArgument,
            "name a node (--node host:port) or a cluster (--cluster FILE)"};
  }
  if (rpc::Status s = ResolveAdminToken(request.token, request.token_file, &out->token); !s.ok()) {
    return s;
  }
  out->tls = ApplyTlsFlags(request.tls, std::move(file_tls));
  return rpc::Status::Ok();
}

rpc::Status ResolveAdminToken(const std::string& flag, const std::string& file,
                              std::string* token) {
  token->clear();
  if (!flag.empty()) {
    *token = flag;
  } else if (!file.empty()) {
    std::vector<std::string> tokens;
    if (rpc::Status s = ReadTokenFile(file, &tokens); !s.ok()) return s;
    if (tokens.empty()) return {rpc::Code::kInvalidArgument, file + " holds no token"};
    *token = tokens.front();
  } else if (const char* env = std::getenv("RAILYARD_TOKEN")) {
    *token = env;
  }
  return rpc::Status::Ok();
}

}  // namespace railyard::cluster
