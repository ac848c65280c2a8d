// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/cluster/access.h"
#include "core/rpc/status.h"
#include "railyard/admin.pb.h"

namespace CLI {
class App;
}

namespace railyard::ctl {

// Exit codes that scripts can rely on.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;       // The command failed on at least one node.
inline constexpr int kExitUsage = 2;        // Bad flags or files.
inline constexpr int kExitRefused = 3;      // A missing, invalid or insufficient token.
inline constexpr int kExitUnreachable = 4;  // A node's admin service could not be reached.

// Which cluster and how to reach it (cluster file, --node, token, TLS), plus compact's --index.
struct AdminTarget {
  cluster::AccessRequest access;
  std::vector<uint64_t> indexes;  // compact only
  bool json = false;              // One JSON object per node and line instead of a table.
  bool wait = false;              // drain only: until no slots are held (drain_wait.h).
  std::string timeout = "60s";    // drain --wait only: give up after this (exit 5).
};

// Resolves the target; prints the problem and returns kExitUsage if it cannot be.
int ResolveAccess(const AdminTarget& target, cluster::ClusterAccess* access);
// Adds --node, --cluster, --token, --token-file and the --tls flags to `command`.
void AddTargetOptions(CLI::App& command, AdminTarget& target);
// --data-tls, --data-tls-ca, --data-tls-cert, --data-tls-key and --data-tls-server-name: TLS to
// the docservices (not the admin services), for load and get.
void AddDataTlsOptions(CLI::App& command, cluster::TlsFlags& tls);
// The docservices' TLS those flags ask for (nullopt: plain TCP); false, said on stderr, for a
// certificate without its key or the other way round.
bool DataTlsOf(const cluster::TlsFlags& flags, std::optional<rpc::TlsClientOptions>* tls);
// The exit code a failed call to a node deserves.
int ExitFor(const rpc::Status& status);
// The status table.
void PrintStatusHeader();
void PrintStatusRow(const std::string& name, const admin::Telemetry& telemetry);
std::string StatusRow(const std::string& name, const admin::Telemetry& telemetry);
// The --json form of one node's status: {"node", "telemetry"} (protobuf's JSON mapping), or
// {"node", "error", "exit_code"} when it could not be read.
void PrintStatusJson(const std::string& name, const admin::Telemetry& telemetry);
void PrintErrorJson(const std::string& name, const rpc::Status& status);

// Registers status, drain, undrain, compact and flush; returns them so main can tell which ran.
std::vector<CLI::App*> AddAdminCommands(CLI::App& app, AdminTarget& target);
int RunAdminCommand(const std::string& command, const AdminTarget& target);

}  // namespace railyard::ctl
