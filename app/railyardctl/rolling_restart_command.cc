// SPDX-License-Identifier: Apache-2.0
#include "app/railyardctl/rolling_restart_command.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "app/railyardctl/drain_wait.h"
#include "core/cluster/restart_command.h"
#include "core/cluster/rolling_restart.h"
#include "core/load/lab.h"

namespace railyard::ctl {

CLI::App* AddRollingRestartCommand(CLI::App& app, RollingRestartCommandOptions& o) {
  CLI::App* command = app.add_subcommand(
      "rolling-restart",
      "Restart nodes one at a time: drain, wait until no client is left, restart, wait until it "
      "serves and has caught up, undrain; stop at the first failure (operator token)");
  AddTargetOptions(*command, o.target);
  command->add_option("--only", o.nodes,
                      "Restart these nodes, in this order (repeatable; default: every node, "
                      "replicas first, the updater last)");
  auto* lab = command->add_option("--lab", o.lab_dir, "Restart through the lab in this folder");
  command
      ->add_option("--restart-command", o.restart_command,
                   "Restart with this shell command, {name} replaced by the node's name (e.g. "
                   "'ssh {name} systemctl restart railyard-node'; default: the cluster file's "
                   "restart_command)")
      ->excludes(lab);
  auto check_duration = [](const std::string& text) {
    return ParseTimeout(text) ? std::string() : "not a duration: " + text;
  };
  command
      ->add_option("--drain-timeout", o.drain_timeout,
                   "Give up on a node whose clients have not left within this")
      ->capture_default_str()
      ->check(check_duration);
  command
      ->add_option("--serve-timeout", o.serve_timeout,
                   "Give up on a node not serving and caught up within this of its restart")
      ->capture_default_str()
      ->check(check_duration);
  command->add_flag("--allow-last-replica", o.allow_last_replica,
                    "Go on when the node is the last replica that serves (reads then fall on the "
                    "updater alone)");
  command->footer(
      "Exit codes: 0 every node restarted and serves, 1 a step failed (the output names it), 2 "
      "usage, 3 token refused, 4 node unreachable, 5 not drained in time.");
  return command;
}

int RunRollingRestart(const RollingRestartCommandOptions& o) {
  cluster::ClusterAccess access;
  if (int rc = ResolveAccess(o.target, &access); rc != kExitOk) return rc;
  const std::string command =
      o.restart_command.empty() ? access.restart_command : o.restart_command;
  if (o.lab_dir.empty() && command.empty()) {
    std::fprintf(stderr,
                 "railyardctl: rolling-restart needs --restart-command CMD, --lab DIR or a "
                 "cluster file with a restart_command\n");
    return kExitUsage;
  }
  cluster::RollingRestartOptions options;
  options.cluster = cluster::CopyTargetsOf(access);
  options.nodes = o.nodes;
  options.drain_timeout = *ParseTimeout(o.drain_timeout);
  options.serve_timeout = *ParseTimeout(o.serve_timeout);
  options.allow_last_replica = o.allow_last_replica;
  options.progress = [](const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  };
  const std::string lab = o.lab_dir;
  const auto command_timeout = options.serve_timeout;
  options.restart = [lab, command, command_timeout](const std::string& node) {
    if (!lab.empty()) return load::LabHost(lab, node, load::LabHostAction::kRestart);
    std::string output;
    const rpc::Status s = cluster::RunRestartCommand(command, node, command_timeout, &output);
    if (!output.empty()) std::printf("%s%s", output.c_str(), output.back() == '\n' ? "" : "\n");
    return s;
  };
  const rpc::Status s = cluster::RollingRestart(options);
  if (s.ok()) {
    std::printf("rolling restart done\n");
    return kExitOk;
  }
  std::fprintf(stderr, "railyardctl: %s\n", s.message().c_str());
  if (s.code() == rpc::Code::kDeadlineExceeded &&
      s.message().find("not drained") != std::string::npos) {
    return kExitDrainTimeout;
  }
  if (s.code() == rpc::Code::kFailedPrecondition || s.code() == rpc::Code::kNotFound) {
    return kExitFailed;
  }
  return std::max(kExitFailed, ExitFor(s));
}

}  // namespace railyard::ctl
