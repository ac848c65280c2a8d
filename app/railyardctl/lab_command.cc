// SPDX-License-Identifier: Apache-2.0
#include "app/railyardctl/lab_command.h"

#include <cstdio>
#include <filesystem>
#include <vector>

#include "app/railyardctl/admin_commands.h"
#include "core/cluster/restart_command.h"
#include "core/load/lab.h"
#include "core/load/lab_network.h"

namespace railyard::ctl {

namespace {

struct HostActionSpec {
  const char* name;
  const char* help;
  load::LabHostAction action;
};

constexpr HostActionSpec kHostActions[] = {
    {"kill", "SIGKILL a host's node", load::LabHostAction::kKill},
    {"stop", "SIGTERM a host's node: it drains and exits", load::LabHostAction::kStop},
    {"start", "Start a host's node again, on its addresses and data", load::LabHostAction::kStart},
    {"restart", "Stop, then start a host's node", load::LabHostAction::kRestart},
    {"pause", "SIGSTOP a host's node", load::LabHostAction::kPause},
    {"resume", "SIGCONT a host's node", load::LabHostAction::kResume},
};

int Failed(const rpc::Status& s) {
  std::fprintf(stderr, "railyardctl lab: %s\n", s.message().c_str());
  return s.code() == rpc::Code::kNotFound || s.code() == rpc::Code::kInvalidArgument ? kExitUsage
                                                                                     : kExitFailed;
}

int Status(const std::string& dir) {
  lab::State state;
  if (rpc::Status s = load::ReadLabState(dir, &state); !s.ok()) return Failed(s);
  std::printf("lab %s in %s: %s\n", state.id().c_str(), dir.c_str(),
              state.namespaces() ? ("network namespaces on " + state.subnet() + ".0/24").c_str()
                                 : "loopback addresses, no partitions");
  std::printf("%-12s %-8s %-10s %-22s %-22s %-8s %s\n", "HOST", "ROLE", "PROCESS", "SERVICE",
              "ADMIN", "PID", "NETWORK");
  for (const lab::Host& h : state.host()) {
    std::string network;
    if (h.cut_silently()) network += "cut silently ";
    if (h.cut_loudly()) network += "link down ";
    if (h.isolated()) network += "isolated ";
    if (network.empty()) network = "connected";
    const bool running = load::ProcessRuns(h.pid(), load::LabHostProgram(h));
    std::printf("%-12s %-8s %-10s %-22s %-22s %-8d %s\n", h.name().c_str(), h.role().c_str(),
                running ? "running" : "ended", h.service().c_str(), h.admin().c_str(), h.pid(),
                network.c_str());
  }
  std::printf("cluster file: %s (viewer token: %s, operator token: %s)\n",
              load::LabClusterFile(dir).c_str(), load::LabViewerTokenFile(dir).c_str(),
              load::LabOperatorTokenFile(dir).c_str());
  return kExitOk;
}

}  // namespace

CLI::App* AddLabCommand(CLI::App& app, LabCommandOptions& o) {
  CLI::App* lab =
      app.add_subcommand("lab",
                         "A lab of hosts on one machine: an updater, replicas and load clients, "
                         "each in a network namespace of its "
                         "own as root (else on loopback addresses), to stop, pause and partition");
  lab->require_subcommand(1);
  lab->add_option("--dir", o.dir, "The lab's folder: its state, cluster file, tokens, data, logs")
      ->capture_default_str();
  CLI::App* up = lab->add_subcommand("up", "Make the hosts and start their nodes");
  up->add_option("--replicas", o.replicas, "Replicas beside the updater")->capture_default_str();
  up->add_flag("--loopback", o.loopback, "Loopback addresses even as root (no partitions)");
  up->add_option("--memtable-entries", o.memtable_entries, "In-memory index size per node")
      ->capture_default_str();
  up->add_option("--clients", o.clients,
                 "Load clients (railyardctl load), each a host of its own: writes go to the "
                 "updater, reads over a deterministic subset of the replicas; their telemetry is "
                 "in the cluster file (role \"client\")")
      ->check(CLI::Range(0, 249))
      ->capture_default_str();
  up->add_option("--client-subset", o.client_subset, "Replicas each load client reads from")
      ->check(CLI::Range(1, 250))
      ->capture_default_str();
  up->add_option("--client-rate", o.client_rate,
                 "Calls per second of each load client (a tenth of them writes)")
      ->check(CLI::Range(0.1, 1e6))
      ->capture_default_str();
  lab->add_subcommand("down",
                      "Kill the nodes and remove every namespace and link the lab made (also "
                      "after a crash); data and logs stay");
  lab->add_subcommand("status", "The hosts, their processes and their network");
  for (const HostActionSpec& spec : kHostActions) {
    lab->add_subcommand(spec.name, spec.help)->add_option("host", o.host, "Host name")->required();
  }
  CLI::App* cut = lab->add_subcommand(
      "cut",
      "Partition a host: silently (every frame dropped) by default, --loud (link down), or "
      "--isolate (cut from the other isolated hosts only)");
  cut->add_option("host", o.host, "Host name")->required();
  auto* loud = cut->add_flag("--loud", o.loud, "Take its link down: peers see errors at once");
  cut->add_flag("--isolate", o.isolate,
                "Cut it from every other host cut with --isolate, silently; the rest still reach "
                "it")
      ->excludes(loud);
  lab->add_subcommand("heal", "Undo every cut of a host")
      ->add_option("host", o.host, "Host name")
      ->required();
  // --dir after the action too (lab up --dir D), as before it (lab --dir D up).
  for (CLI::App* sub : lab->get_subcommands({})) {
    sub->add_option("--dir", o.dir, "The lab's folder")->capture_default_str();
  }
  lab->footer("Exit codes: 0 ok, 1 failed, 2 usage (no such host, no lab in --dir).");
  return lab;
}

int RunLab(CLI::App& lab, const LabCommandOptions& o) {
  CLI::App* command = lab.get_subcommands().front();
  const std::string name = command->get_name();
  if (name == "up") {
    load::LabOptions options;
    options.dir = o.dir;
    options.replicas = o.replicas;
    options.namespaces = !o.loopback;
    options.memtable_entries = o.memtable_entries;
    options.clients = o.clients;
    options.client_subset = o.client_subset;
    options.client_rate = o.client_rate;
    // Rolling restarts of the lab (railyardctl and the console) restart a host through this
    // program, as `lab restart` does.
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::filesystem::path dir = std::filesystem::absolute(o.dir, ec);
    options.ctl_binary = self.string();
    if (!self.empty() && !dir.empty()) {
      options.restart_command = cluster::ShellWord(self.string()) + " lab restart {name} --dir " +
                                cluster::ShellWord(dir.string());
    }
    options.progress = [](const std::string& line) {
      std::printf("%s\n", line.c_str());
      std::fflush(stdout);
    };
    lab::State state;
    if (rpc::Status s = load::LabUp(options, &state); !s.ok()) return Failed(s);
    return Status(o.dir);
  }
  if (name == "down") {
    std::vector<std::string> removed;
    const rpc::Status s = load::LabDown(o.dir, &removed);
    for (const std::string& line : removed) std::printf("%s\n", line.c_str());
    if (!s.ok()) return Failed(s);
    std::printf("lab in %s is down\n", o.dir.c_str());
    return kExitOk;
  }
  if (name == "status") return Status(o.dir);
  if (name == "cut" || name == "heal") {
    const rpc::Status s = name == "heal" ? load::LabHeal(o.dir, o.host)
                                         : load::LabPartition(o.dir, o.host,
                                                              o.loud      ? load::LabCut::kLoud
                                                              : o.isolate ? load::LabCut::kIsolate
                                                                          : load::LabCut::kSilent);
    if (!s.ok()) return Failed(s);
    std::printf("%s: %s\n", o.host.c_str(), name == "heal" ? "healed" : "cut");
    return kExitOk;
  }
  for (const HostActionSpec& spec : kHostActions) {
    if (name != spec.name) continue;
    if (rpc::Status s = load::LabHost(o.dir, o.host, spec.action); !s.ok()) return Failed(s);
    std::printf("%s: %s done\n", o.host.c_str(), spec.name);
    return kExitOk;
  }
  return kExitUsage;
}

}  // namespace railyard::ctl
