// SPDX-License-Identifier: Apache-2.0
#include "app/railyardctl/snapshot_command.h"

#include <cinttypes>
#include <cstdio>
#include <ctime>

#include "app/railyardctl/json_line.h"
#include "core/cluster/admin_client.h"
#include "core/cluster/replication_names.h"

namespace railyard::ctl {

namespace {

std::string DefaultName(const std::string& node) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &utc);
  std::string name;
  for (char c : node) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return (name.empty() ? std::string("node") : name.substr(0, 40)) + "-" + stamp;
}

std::string Megabytes(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

}  // namespace

CLI::App* AddSnapshotCommand(CLI::App& app, SnapshotOptions& o) {
  CLI::App* command = app.add_subcommand(
      "snapshot",
      "A consistent copy of a node's store at one queue position, made on its host in "
      "<data_dir>/snapshots/NAME with hard links; a new replica starts from it without fetching "
      "the queue again (operator token)");
  command->add_option("node", o.node,
                      "The node: its name in the cluster file, or its admin address (may be left "
                      "out when one node is named)");
  command->add_option("--name", o.name,
                      "The snapshot's name: letters, digits, '_', '.', '-' (default: the node's "
                      "name and the UTC time)");
  AddTargetOptions(*command, o.target);
  command->add_flag("--json", o.target.json,
                    "One JSON object: {\"node\", \"snapshot\": {path, position, files and bytes "
                    "linked and copied, role}}");
  command->footer(
      "To start a replica from it: on that host, move the folder (mv keeps the links; a copy "
      "across filesystems copies the bytes) to be the new node's data_dir, give that node its "
      "own name and `replication { replica: true follow: \"UPDATER:PORT\" }`, and start it; it "
      "follows its updater from the snapshot's position.\n"
      "Exit codes: 0 taken, 1 failed (a bad or taken name, the disk), 2 usage, 3 token refused "
      "or a process without a store, 4 node unreachable.");
  return command;
}

int RunSnapshot(const SnapshotOptions& o) {
  cluster::ClusterAccess access;
  if (int rc = ResolveAccess(o.target, &access); rc != kExitOk) return rc;
  const cluster::NodeTarget* target = nullptr;
  for (const cluster::NodeTarget& node : access.nodes) {
    if (node.name == o.node || node.admin.ToString() == o.node) target = &node;
  }
  if (o.node.empty() && access.nodes.size() == 1) target = &access.nodes.front();
  if (!target) {
    std::string known;
    for (const cluster::NodeTarget& node : access.nodes) known += " " + node.name;
    std::fprintf(stderr, "railyardctl: %s; the nodes are:%s\n",
                 o.node.empty() ? "name the node to take a snapshot of"
                                : ("no node " + o.node + " in the cluster").c_str(),
                 known.c_str());
    return kExitUsage;
  }
  const std::string name = o.name.empty() ? DefaultName(target->name) : o.name;
  cluster::AdminClient client(target->admin, access.token, "railyardctl", access.tls);
  admin::SnapshotTaken taken;
  rpc::Status s = client.Connect(std::chrono::seconds(5));
  if (s.ok()) s = client.Snapshot(name, &taken);
  if (!s.ok()) {
    std::fprintf(stderr, "railyardctl: snapshot of %s: %s\n", target->name.c_str(),
                 s.ToString().c_str());
    const int rc = ExitFor(s);
    return rc == kExitRefused || rc == kExitUnreachable ? rc : kExitFailed;
  }
  if (o.target.json) {
    JsonLine().Add("node", target->name).Add("snapshot", taken).Print();
    return kExitOk;
  }
  std::printf("snapshot of %s (%s) at queue position %" PRIu64 ":\n  %s\n", target->name.c_str(),
              std::string(cluster::DocstoreRoleName(taken.role())).c_str(), taken.position(),
              taken.path().c_str());
  std::printf("  %" PRIu64 " files linked (%s, shared with the store), %" PRIu64 " copied (%s)\n",
              taken.files_linked(), Megabytes(taken.bytes_linked()).c_str(), taken.files_copied(),
              Megabytes(taken.bytes_copied()).c_str());
  std::printf("A replica started on it follows its updater from position %" PRIu64
              " (railyardctl snapshot --help says how).\n",
              taken.position());
  return kExitOk;
}

}  // namespace railyard::ctl
