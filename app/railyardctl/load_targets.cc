// SPDX-License-Identifier: Apache-2.0
#include "app/railyardctl/load_targets.h"

#include <cstdio>

#include "core/cluster/access.h"
#include "core/cluster/admin_client.h"
#include "core/cluster/cluster_file.h"

namespace railyard::ctl {

namespace {

bool Parse(const std::string& address, const char* flag, rpc::Endpoint* out) {
  const auto endpoint = rpc::ParseEndpoint(address);
  if (!endpoint) {
    std::fprintf(stderr, "railyardctl: %s '%s' is not host:port\n", flag, address.c_str());
    return false;
  }
  *out = *endpoint;
  return true;
}

// The role a node reports (a node without replication telemetry is its own updater).
bool AskRole(const cluster::NodeTarget& node, const cluster::ClusterAccess& access,
             std::string* role) {
  cluster::AdminClient client(node.admin, access.token, "railyardctl load", access.tls);
  rpc::Status s = client.Connect(std::chrono::seconds(2));
  admin::Telemetry telemetry;
  if (s.ok()) s = client.Telemetry(&telemetry);
  if (!s.ok()) {
    std::fprintf(stderr,
                 "railyardctl: %s has no role in the cluster file and its telemetry did not say "
                 "(%s); give each node a role: \"updater\" or \"replica\"\n",
                 node.name.c_str(), s.ToString().c_str());
    return false;
  }
  *role = telemetry.replication().role() == admin::DOCSTORE_REPLICA ? "replica" : "updater";
  return true;
}

bool FromClusterFile(const LoadTargetFlags& flags, bool writes, LoadTargets* out) {
  config::Cluster file;
  if (rpc::Status s = cluster::LoadClusterFile(flags.cluster_file, &file); !s.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", s.message().c_str());
    return false;
  }
  std::optional<cluster::ClusterAccess> access;  // Resolved when a role must be asked for.
  std::vector<std::string> updaters;
  for (int i = 0; i < file.node_size(); ++i) {
    const config::ClusterMember& member = file.node(i);
    if (member.role() == "client") continue;  // Another load client, watched only.
    LoadNode node;
    if (!Parse(member.service(), member.name().c_str(), &node.service)) return false;
    node.role = member.role();
    if (node.role.empty()) {
      if (!access) {
        access.emplace();
        cluster::AccessRequest request;
        request.cluster_file = flags.cluster_file;
        request.token_file = flags.token_file;
        if (rpc::Status s = cluster::ResolveAccess(request, &*access); !s.ok()) {
          std::fprintf(stderr, "railyardctl: %s\n", s.message().c_str());
          return false;
        }
      }
      if (!AskRole(access->nodes[static_cast<size_t>(i)], *access, &node.role)) return false;
    }
    if (node.role != "updater" && node.role != "replica") {
      std::fprintf(stderr, "railyardctl: %s's role is '%s': it must be updater or replica\n",
                   member.name().c_str(), node.role.c_str());
      return false;
    }
    if (node.role == "updater") {
      updaters.push_back(member.name() + " (" + member.service() + ")");
      out->updater = node.service;
    }
    out->readers.push_back(node);
  }
  if (writes && updaters.size() != 1) {
    std::string names;
    for (const std::string& u : updaters) names += (names.empty() ? "" : ", ") + u;
    std::fprintf(
        stderr,
        "railyardctl: %s has %zu updaters%s%s; writes go to exactly one: mark one node "
        "role: \"updater\" and its followers role: \"replica\", or use --read-fraction 1\n",
        flags.cluster_file.c_str(), updaters.size(), names.empty() ? "" : ": ", names.c_str());
    return false;
  }
  if (updaters.size() != 1) out->updater.reset();
  return true;
}

}  // namespace

bool ResolveLoadTargets(const LoadTargetFlags& flags, bool writes, LoadTargets* out) {
  const int ways = (!flags.servers.empty() ? 1 : 0) + (!flags.cluster_file.empty() ? 1 : 0) +
                   (!flags.updater.empty() || !flags.read.empty() ? 1 : 0);
  if (ways == 0) {
    std::fprintf(stderr,
                 "railyardctl: name the nodes: --updater host:port [--read host:port,...], "
                 "--cluster FILE, or --server host:port\n");
    return false;
  }
  if (ways > 1) {
    std::fprintf(stderr,
                 "railyardctl: --updater/--read, --cluster and --server are three ways to name "
                 "the nodes: use one\n");
    return false;
  }
  if (flags.unreplicated && flags.servers.empty()) {
    std::fprintf(stderr, "railyardctl: --unreplicated applies to --server nodes only\n");
    return false;
  }
  if (!flags.cluster_file.empty()) return FromClusterFile(flags, writes, out);
  if (!flags.servers.empty()) {
    for (const std::string& address : flags.servers) {
      LoadNode node{{}, "server"};
      if (!Parse(address, "--server", &node.service)) return false;
      out->readers.push_back(node);
    }
    if (writes && out->readers.size() > 1 && !flags.unreplicated) {
      std::fprintf(stderr,
                   "railyardctl: writes would go to %zu servers, but a cluster takes writes on "
                   "its updater only (a replica refuses them): name it with --updater host:port "
                   "and the nodes to read from with --read host:port,... (or --cluster FILE); "
                   "for nodes that are independent stores, add --unreplicated; for reads only, "
                   "--read-fraction 1\n",
                   out->readers.size());
      return false;
    }
    return true;
  }
  if (flags.updater.empty()) {
    std::fprintf(stderr, "railyardctl: --read needs --updater host:port (where writes go)\n");
    return false;
  }
  rpc::Endpoint updater;
  if (!Parse(flags.updater, "--updater", &updater)) return false;
  out->updater = updater;
  for (const std::string& address : flags.read) {
    LoadNode node;
    if (!Parse(address, "--read", &node.service)) return false;
    node.role = node.service == updater ? "updater" : "replica";
    bool seen = false;
    for (const LoadNode& n : out->readers) seen = seen || n.service == node.service;
    if (!seen) out->readers.push_back(node);
  }
  if (out->readers.empty()) out->readers.push_back({updater, "updater"});
  return true;
}

}  // namespace railyard::ctl
