#include "app/railyardctl/admin_commands.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/node/admin_client.h"
#include "core/node/config.h"

namespace railyard::ctl {

int ResolveTargets(const AdminTarget& target, std::vector<NamedNode>* out) {
  if (!target.cluster_file.empty()) {
    config::Cluster cluster;
    if (rpc::Status s = node::LoadCluster(target.cluster_file, &cluster); !s.ok()) {
      std::fprintf(stderr, "railyardctl: %s\n", s.message().c_str());
      return kExitUsage;
    }
    for (const config::ClusterMember& member : cluster.node()) {
      const auto endpoint = rpc::ParseEndpoint(member.admin());
      if (!endpoint) {
        std::fprintf(stderr, "railyardctl: %s: node '%s' has a bad admin address '%s'\n",
                     target.cluster_file.c_str(), member.name().c_str(), member.admin().c_str());
        return kExitUsage;
      }
      out->push_back({member.name().empty() ? member.admin() : member.name(), *endpoint});
    }
  }
  for (const std::string& address : target.nodes) {
    const auto endpoint = rpc::ParseEndpoint(address);
    if (!endpoint) {
      std::fprintf(stderr, "railyardctl: '%s' is not host:port\n", address.c_str());
      return kExitUsage;
    }
    out->push_back({address, *endpoint});
  }
  if (out->empty()) {
    std::fprintf(stderr,
                 "railyardctl: name a node (--node host:port) or a cluster (--cluster FILE)\n");
    return kExitUsage;
  }
  return kExitOk;
}

int ResolveToken(const AdminTarget& target, std::string* token) {
  if (const rpc::Status s = node::ResolveAdminToken(target.token, target.token_file, token);
      !s.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", s.message().c_str());
    return kExitUsage;
  }
  return kExitOk;
}

int ResolveTls(const AdminTarget& target, std::optional<rpc::TlsClientOptions>* tls) {
  tls->reset();
  if (!target.cluster_file.empty()) {
    config::Cluster cluster;
    if (rpc::Status s = node::LoadCluster(target.cluster_file, &cluster); !s.ok()) {
      std::fprintf(stderr, "railyardctl: %s\n", s.message().c_str());
      return kExitUsage;
    }
    *tls = node::ClientTlsOptionsFrom(cluster);
  }
  if (target.tls || !target.tls_ca.empty() || !target.tls_cert.empty() || !target.tls_key.empty() ||
      !target.tls_server_name.empty()) {
    if (!*tls) tls->emplace();
    if (!target.tls_ca.empty()) (*tls)->ca_file = target.tls_ca;
    if (!target.tls_cert.empty()) (*tls)->cert_file = target.tls_cert;
    if (!target.tls_key.empty()) (*tls)->key_file = target.tls_key;
    if (!target.tls_server_name.empty()) (*tls)->server_name = target.tls_server_name;
  }
  return kExitOk;
}

namespace {

void AddTlsOptions(CLI::App& command, AdminTarget& target) {
  command.add_flag("--tls", target.tls,
                   "Reach admin services over TLS (the system's CAs unless --tls-ca)");
  command.add_option("--tls-ca", target.tls_ca, "CA file the admin certificates chain to (PEM)")
      ->check(CLI::ExistingFile);
  command.add_option("--tls-cert", target.tls_cert, "Client certificate for mutual TLS (PEM)")
      ->check(CLI::ExistingFile);
  command.add_option("--tls-key", target.tls_key, "Key of --tls-cert (PEM)")
      ->check(CLI::ExistingFile);
  command.add_option("--tls-server-name", target.tls_server_name,
                     "Name the admin certificates must carry (default: the --node host)");
}

}  // namespace

int ExitFor(const rpc::Status& s) {
  switch (s.code()) {
    case rpc::Code::kOk:
      return kExitOk;
    case rpc::Code::kUnauthenticated:
    case rpc::Code::kFailedPrecondition:
      return kExitRefused;
    case rpc::Code::kUnavailable:
      return kExitUnreachable;
    default:
      return kExitFailed;
  }
}

namespace {

const char* StateName(admin::NodeState state) {
  switch (state) {
    case admin::NODE_SERVING:
      return "serving";
    case admin::NODE_LAME_DUCK:
      return "lame-duck";
    case admin::NODE_STARTING:
      return "starting";
    default:
      return "unknown";
  }
}

}  // namespace

void PrintStatusHeader() {
  std::printf("%-22s %-10s %-22s %9s %8s %9s %6s %8s %10s %14s\n", "NODE", "STATE", "SERVICE",
              "REQ/S", "ERR/S", "P99(us)", "SLOTS", "INDEXES", "MEMTABLE", "BLOOM(res/bud)");
}

void PrintStatusRow(const std::string& name, const admin::Telemetry& t) {
  double p99 = 0;
  for (const admin::MethodStats& m : t.throughput().methods()) p99 = std::max(p99, m.p99_us());
  const admin::StorageStats& st = t.storage();
  const std::string memtable =
      std::to_string(st.memtable_entries()) + "/" + std::to_string(st.memtable_capacity());
  const std::string bloom = std::to_string(st.bloom_resident_bytes() >> 10) + "K/" +
                            std::to_string(st.bloom_budget_bytes() >> 10) + "K";
  std::printf("%-22s %-10s %-22s %9.1f %8.1f %9.0f %6d %8d %10s %14s\n", name.c_str(),
              StateName(t.state()), t.service_address().c_str(), t.throughput().requests_per_s(),
              t.throughput().errors_per_s(), p99, t.slots_size(), st.indexes_size(),
              memtable.c_str(), bloom.c_str());
}

void AddTargetOptions(CLI::App& command, AdminTarget& target) {
  command.add_option("-n,--node", target.nodes, "Admin address host:port (repeatable)");
  command.add_option("--cluster", target.cluster_file, "Cluster file (protobuf text format)")
      ->check(CLI::ExistingFile);
  command.add_option("--token", target.token, "Admin token (or --token-file, or $RAILYARD_TOKEN)");
  command.add_option("--token-file", target.token_file, "File whose first line is the token");
}

std::vector<CLI::App*> AddAdminCommands(CLI::App& app, AdminTarget& target) {
  struct Spec {
    const char* name;
    const char* help;
  };
  const Spec specs[] = {
      {"status", "Show each node's state, load, slots and storage (viewer token)"},
      {"drain", "Put nodes in lame duck: clients move away, requests in flight finish (operator)"},
      {"undrain", "Take nodes out of lame duck (operator)"},
      {"compact", "Compact on-disk indexes: all, or those given with --index (operator)"},
      {"flush", "Write the in-memory index to disk (operator)"},
  };
  std::vector<CLI::App*> commands;
  for (const Spec& spec : specs) {
    CLI::App* command = app.add_subcommand(spec.name, spec.help);
    command->add_option("-n,--node", target.nodes, "Admin address host:port (repeatable)");
    command->add_option("--cluster", target.cluster_file, "Cluster file (protobuf text format)")
        ->check(CLI::ExistingFile);
    command->add_option("--token", target.token,
                        "Admin token (or --token-file, or $RAILYARD_TOKEN)");
    command->add_option("--token-file", target.token_file, "File whose first line is the token");
    AddTlsOptions(*command, target);
    if (std::string(spec.name) == "compact") {
      command->add_option("--index", target.indexes,
                          "On-disk index to merge (repeatable, adjacent)");
    }
    command->footer(
        "Exit codes: 0 ok, 1 failed on a node, 2 usage, 3 token refused, 4 node unreachable.");
    commands.push_back(command);
  }
  return commands;
}

int RunAdminCommand(const std::string& command, const AdminTarget& target) {
  std::vector<NamedNode> nodes;
  if (int rc = ResolveTargets(target, &nodes); rc != kExitOk) return rc;
  std::string token;
  if (int rc = ResolveToken(target, &token); rc != kExitOk) return rc;
  std::optional<rpc::TlsClientOptions> tls;
  if (int rc = ResolveTls(target, &tls); rc != kExitOk) return rc;

  int worst = kExitOk;
  if (command == "status") PrintStatusHeader();
  for (const NamedNode& n : nodes) {
    node::AdminClient client(n.admin, token, "railyardctl", tls);
    rpc::Status s = client.Connect(std::chrono::seconds(2));
    if (s.ok() && command == "status") {
      admin::Telemetry telemetry;
      s = client.Telemetry(&telemetry);
      if (s.ok()) PrintStatusRow(n.name, telemetry);
    } else if (s.ok()) {
      admin::AdminResponse response;
      s = client.Command("admin." + std::string(1, static_cast<char>(std::toupper(command[0]))) +
                             command.substr(1),
                         target.indexes, &response);
      if (s.ok()) std::printf("%s: %s\n", n.name.c_str(), response.message().c_str());
    }
    if (!s.ok()) {
      std::fprintf(stderr, "railyardctl: %s: %s\n", n.name.c_str(), s.ToString().c_str());
      worst = std::max(worst, ExitFor(s));
    }
  }
  return worst;
}

}  // namespace railyard::ctl
