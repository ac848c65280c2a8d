#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/rpc/endpoint.h"
#include "core/rpc/status.h"
#include "core/rpc/tls.h"
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

struct AdminTarget {
  std::vector<std::string> nodes;  // Admin addresses.
  std::string cluster_file;
  std::string token;
  std::string token_file;
  std::vector<uint64_t> indexes;  // compact only
  // TLS to the admin services: on when --tls or any --tls-* flag is given, or the cluster file
  // has an admin_tls block (flags override its fields).
  bool tls = false;
  std::string tls_ca;
  std::string tls_cert;
  std::string tls_key;
  std::string tls_server_name;
};

struct NamedNode {
  std::string name;
  rpc::Endpoint admin;
};

// The nodes named by --cluster and --node; prints the problem and returns kExitUsage if none.
int ResolveTargets(const AdminTarget& target, std::vector<NamedNode>* nodes);
// --token, then --token-file, then $RAILYARD_TOKEN.
int ResolveToken(const AdminTarget& target, std::string* token);
// Adds --node, --cluster, --token and --token-file to `command`.
void AddTargetOptions(CLI::App& command, AdminTarget& target);
// The TLS client options for the admin services, or nullopt for plain TCP; kExitUsage (printed)
// if the cluster file cannot be read.
int ResolveTls(const AdminTarget& target, std::optional<rpc::TlsClientOptions>* tls);
// The exit code a failed call to a node deserves.
int ExitFor(const rpc::Status& status);
// The status table.
void PrintStatusHeader();
void PrintStatusRow(const std::string& name, const admin::Telemetry& telemetry);

// Registers status, drain, undrain, compact and flush; returns them so main can tell which ran.
std::vector<CLI::App*> AddAdminCommands(CLI::App& app, AdminTarget& target);
int RunAdminCommand(const std::string& command, const AdminTarget& target);

}  // namespace railyard::ctl
