// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/cluster_file.h"

#include "core/cluster/text_files.h"

namespace railyard::cluster {

rpc::Status LoadClusterFile(const std::string& path, config::Cluster* out) {
  if (rpc::Status s = ParseTextProtoFile(path, out); !s.ok()) return s;
  if (out->node_size() == 0) return {rpc::Code::kInvalidArgument, path + ": no node entries"};
  for (const config::ClusterMember& member : out->node()) {
    if (member.admin().empty()) {
      return {rpc::Code::kInvalidArgument,
              path + ": node '" + member.name() + "' has no admin address"};
    }
  }
  return rpc::Status::Ok();
}

std::optional<rpc::TlsClientOptions> AdminTlsOf(const config::Cluster& cluster) {
  if (!cluster.has_admin_tls()) return std::nullopt;
  return ClientTlsFrom(cluster.admin_tls());
}

rpc::TlsClientOptions ClientTlsFrom(const config::ClientTlsConfig& c) {
  rpc::TlsClientOptions tls;
  tls.ca_file = c.ca_file();
  tls.cert_file = c.cert_file();
  tls.key_file = c.key_file();
  tls.server_name = c.server_name();
  return tls;
}

}  // namespace railyard::cluster
