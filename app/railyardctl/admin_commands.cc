// SPDX-License-Identifier: Apache-2.0
#include "app/railyardctl/admin_commands.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "app/railyardctl/drain_wait.h"
#include "app/railyardctl/json_line.h"
#include "core/cluster/admin_client.h"
#include "core/cluster/replication_names.h"
#include "core/cluster/request_figures.h"

namespace railyard::ctl {

int ResolveAccess(const AdminTarget& target, cluster::ClusterAccess* access) {
  if (const rpc::Status s = cluster::ResolveAccess(target.access, access); !s.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", s.message().c_str());
    return kExitUsage;
  }
  return kExitOk;
}

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

// The docstore role; "-" without replication telemetry: a node still opening its store (it may
// become either), or a service of one's own with no docstore (node::ServiceAdmin).
const char* RoleName(const admin::Telemetry& t) {
  if (!t.has_replication()) return "-";
  return t.replication().role() == admin::DOCSTORE_REPLICA ? "replica" : "updater";
}

// A replica's following state; "-" for an updater.
std::string ReplicaStateName(const admin::Replication& r) {
  if (r.role() != admin::DOCSTORE_REPLICA) return "-";
  std::string name(cluster::ReplicaStateName(r.state()));
  std::replace(name.begin(), name.end(), ' ', '-');  // One word per column.
  if (r.state() == admin::REPLICA_CATCHING_UP) {
    name += "(" + std::to_string(static_cast<int>(r.catch_up_progress() * 100)) + "%)";
  }
  return name;
}

// A replica's lag in documents and seconds; "-" for an updater, "unknown" without a live follow
// connection (docs/figures.md).
std::string LagText(const admin::Replication& r) {
  if (r.role() != admin::DOCSTORE_REPLICA) return "-";
  if (!cluster::ReplicaLagKnown(r)) return "unknown";
  char lag[64];
  std::snprintf(lag, sizeof(lag), "%llud/%.1fs", static_cast<unsigned long long>(r.lag_docs()),
                r.lag_seconds());
  return lag;
}

}  // namespace

void PrintStatusHeader() {
  std::printf("%-22s %-10s %-8s %-17s %-14s %-22s %9s %8s %9s %6s %8s %10s %14s\n", "NODE", "STATE",
              "ROLE", "REPLICATION", "LAG(docs/s)", "SERVICE", "REQ/S", "ERR/S", "P99(us)", "SLOTS",
              "INDEXES", "MEMTABLE", "BLOOM(res/bud)");
}

std::string StatusRow(const std::string& name, const admin::Telemetry& t) {
  const double p99 = cluster::RequestP99Us(t.throughput());
  // Storage columns are "-" where the process reports no store (starting, or no docstore at
  // all), never zeros.
  const admin::StorageStats& st = t.storage();
  const bool store = t.has_storage();
  const std::string indexes = store ? std::to_string(st.indexes_size()) : "-";
  const std::string memtable =
      store ? std::to_string(st.memtable_entries()) + "/" + std::to_string(st.memtable_capacity())
            : "-";
  const std::string bloom = store ? std::to_string(st.bloom_resident_bytes() >> 10) + "K/" +
                                        std::to_string(st.bloom_budget_bytes() >> 10) + "K"
                                  : "-";
  char row[1024];
  std::snprintf(
      row, sizeof(row), "%-22s %-10s %-8s %-17s %-14s %-22s %9.1f %8.1f %9.0f %6d %8s %10s %14s\n",
      name.c_str(), StateName(t.state()), RoleName(t), ReplicaStateName(t.replication()).c_str(),
      LagText(t.replication()).c_str(), t.service_address().c_str(),
      t.throughput().requests_per_s(), t.throughput().errors_per_s(), p99, t.slots_size(),
      indexes.c_str(), memtable.c_str(), bloom.c_str());
  return row;
}

void PrintStatusRow(const std::string& name, const admin::Telemetry& t) {
  std::fputs(StatusRow(name, t).c_str(), stdout);
}

void PrintStatusJson(const std::string& name, const admin::Telemetry& telemetry) {
  JsonLine().Add("node", name).Add("telemetry", telemetry).Print();
}

void PrintErrorJson(const std::string& name, const rpc::Status& status) {
  JsonLine()
      .Add("node", name)
      .Add("error", status.ToString())
      .Add("exit_code", int64_t{ExitFor(status)})
      .Print();
}

void AddDataTlsOptions(CLI::App& command, cluster::TlsFlags& tls) {
  command.add_flag("--data-tls", tls.on,
                   "Reach the docservices over TLS (the system's CAs unless --data-tls-ca)");
  command
      .add_option("--data-tls-ca", tls.ca_file,
                  "CA file the docservices' certificates chain to (PEM)")
      ->check(CLI::ExistingFile);
  command
      .add_option("--data-tls-cert", tls.cert_file,
                  "Client certificate for the docservices' mutual TLS (PEM): a verified one is a "
                  "writer without a token")
      ->check(CLI::ExistingFile);
  command.add_option("--data-tls-key", tls.key_file, "Key of --data-tls-cert (PEM)")
      ->check(CLI::ExistingFile);
  command.add_option("--data-tls-server-name", tls.server_name,
                     "Name the docservices' certificates must carry (default: each server's host)");
}

bool DataTlsOf(const cluster::TlsFlags& flags, std::optional<rpc::TlsClientOptions>* tls) {
  if (flags.cert_file.empty() != flags.key_file.empty()) {
    std::fprintf(stderr, "railyardctl: --data-tls-cert and --data-tls-key go together\n");
    return false;
  }
  *tls = cluster::ApplyTlsFlags(flags, std::nullopt);
  return true;
}

void AddTargetOptions(CLI::App& command, AdminTarget& target) {
  cluster::AccessRequest& a = target.access;
  command.add_option("-n,--node", a.nodes, "Admin address host:port (repeatable)");
  command.add_option("--cluster", a.cluster_file, "Cluster file (protobuf text format)")
      ->check(CLI::ExistingFile);
  command.add_option("--token", a.token, "Admin token (or --token-file, or $RAILYARD_TOKEN)");
  command.add_option("--token-file", a.token_file, "File whose first line is the token");
  command.add_flag("--tls", a.tls.on,
                   "Reach admin services over TLS (the system's CAs unless --tls-ca)");
  command.add_option("--tls-ca", a.tls.ca_file, "CA file the admin certificates chain to (PEM)")
      ->check(CLI::ExistingFile);
  command.add_option("--tls-cert", a.tls.cert_file, "Client certificate for mutual TLS (PEM)")
      ->check(CLI::ExistingFile);
  command.add_option("--tls-key", a.tls.key_file, "Key of --tls-cert (PEM)")
      ->check(CLI::ExistingFile);
  command.add_option("--tls-server-name", a.tls.server_name,
                     "Name the admin certificates must carry (default: the --node host)");
}

std::vector<CLI::App*> AddAdminCommands(CLI::App& app, AdminTarget& target) {
  struct Spec {
    const char* name;
    const char* help;
  };
  const Spec specs[] = {
      {"status",
       "Show each node's state, role (a replica's state and lag), load, slots and storage "
       "(viewer token)"},
      {"drain", "Put nodes in lame duck: clients move away, requests in flight finish (operator)"},
      {"undrain", "Take nodes out of lame duck (operator)"},
      {"compact", "Compact on-disk indexes: all, or those given with --index (operator)"},
      {"flush", "Write the in-memory index to disk (operator)"},
  };
  std::vector<CLI::App*> commands;
  for (const Spec& spec : specs) {
    CLI::App* command = app.add_subcommand(spec.name, spec.help);
    AddTargetOptions(*command, target);
    if (std::string(spec.name) == "status") {
      command->add_flag("--json", target.json,
                        "One JSON object per node and line: {\"node\", \"telemetry\"} or "
                        "{\"node\", \"error\", \"exit_code\"}");
    }
    if (std::string(spec.name) == "compact") {
      command->add_option("--index", target.indexes,
                          "On-disk index to merge (repeatable, adjacent)");
    }
    std::string exit_codes =
        "Exit codes: 0 ok, 1 failed on a node, 2 usage, 3 token refused, 4 node unreachable";
    if (std::string(spec.name) == "drain") {
      command->add_flag("--wait", target.wait,
                        "Then wait until every node has no requests in flight and no client slots "
                        "held (for rolling restarts), printing progress");
      command
          ->add_option("--timeout", target.timeout,
                       "With --wait: give up after this long (e.g. 60s, 500ms, 2m; default 60s)")
          ->check([](const std::string& text) {
            return ParseTimeout(text) ? std::string() : "not a duration: " + text;
          });
      exit_codes += ", 5 not drained before --timeout";
    }
    command->footer(exit_codes + ".");
    commands.push_back(command);
  }
  return commands;
}

int RunAdminCommand(const std::string& command, const AdminTarget& target) {
  cluster::ClusterAccess access;
  if (int rc = ResolveAccess(target, &access); rc != kExitOk) return rc;
  const std::optional<cluster::AdminCommand> action = cluster::ParseAdminCommand(command);
  int worst = kExitOk;
  std::vector<const cluster::NodeTarget*> drained;  // For --wait: those that took the drain.
  const bool json = target.json && !action;
  if (!action && !json) PrintStatusHeader();
  for (const cluster::NodeTarget& n : access.nodes) {
    cluster::AdminClient client(n.admin, access.token, "railyardctl", access.tls);
    rpc::Status s = client.Connect(std::chrono::seconds(2));
    if (s.ok() && !action) {
      admin::Telemetry telemetry;
      s = client.Telemetry(&telemetry);
      if (s.ok() && json) {
        PrintStatusJson(n.name, telemetry);
      } else if (s.ok()) {
        PrintStatusRow(n.name, telemetry);
      }
    } else if (s.ok()) {
      admin::AdminResponse response;
      s = client.Run(*action, target.indexes, &response);
      if (s.ok()) std::printf("%s: %s\n", n.name.c_str(), response.message().c_str());
      if (s.ok() && target.wait && *action == cluster::AdminCommand::kDrain) drained.push_back(&n);
    }
    if (!s.ok()) {
      std::fprintf(stderr, "railyardctl: %s: %s\n", n.name.c_str(), s.ToString().c_str());
      if (json) PrintErrorJson(n.name, s);
      worst = std::max(worst, ExitFor(s));
    }
  }
  // Every node was drained at once above; now one deadline for them all.
  const auto deadline = std::chrono::steady_clock::now() + *ParseTimeout(target.timeout);
  for (const cluster::NodeTarget* n : drained) {
    std::fflush(stdout);
    cluster::AdminClient client(n->admin, access.token, "railyardctl", access.tls);
    rpc::Status s = client.Connect(std::chrono::seconds(2));
    const int rc = s.ok() ? WaitUntilDrained(client, n->name, deadline) : ExitFor(s);
    if (!s.ok())
      std::fprintf(stderr, "railyardctl: %s: %s\n", n->name.c_str(), s.ToString().c_str());
    worst = std::max(worst, rc);
  }
  return worst;
}

}  // namespace railyard::ctl
