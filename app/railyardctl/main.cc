// SPDX-License-Identifier: Apache-2.0
// railyardctl: the command-line side of Railyard.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "app/parse_command_line.h"
#include "app/railyardctl/admin_commands.h"
#include "app/railyardctl/alerts_command.h"
#include "app/railyardctl/demo_command.h"
#include "app/railyardctl/get_command.h"
#include "app/railyardctl/lab_command.h"
#include "app/railyardctl/load_command.h"
#include "app/railyardctl/record_command.h"
#include "app/railyardctl/rolling_restart_command.h"
#include "app/railyardctl/sim_command.h"
#include "app/railyardctl/snapshot_command.h"

int main(int argc, char** argv) {
  CLI::App app{"railyardctl: operate Railyard clusters from the command line"};
  app.set_version_flag("--version", std::string("railyardctl ") + RAILYARD_VERSION);
  app.require_subcommand(1);
  std::string log_level = "error";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));

  railyard::ctl::DemoOptions demo;
  CLI::App* demo_command = railyard::ctl::AddDemoCommand(app, demo);
  railyard::ctl::AdminTarget target;
  const std::vector<CLI::App*> admin_commands = railyard::ctl::AddAdminCommands(app, target);
  railyard::ctl::GetOptions get;
  CLI::App* get_command = railyard::ctl::AddGetCommand(app, get);
  railyard::ctl::LabCommandOptions lab;
  CLI::App* lab_command = railyard::ctl::AddLabCommand(app, lab);
  railyard::ctl::RollingRestartCommandOptions rolling;
  CLI::App* rolling_command = railyard::ctl::AddRollingRestartCommand(app, rolling);
  railyard::ctl::SnapshotOptions snapshot;
  CLI::App* snapshot_command = railyard::ctl::AddSnapshotCommand(app, snapshot);
  railyard::ctl::LoadCommandOptions load;
  CLI::App* load_command = railyard::ctl::AddLoadCommand(app, load);
  railyard::ctl::RecordOptions record;
  CLI::App* record_command = railyard::ctl::AddRecordCommand(app, record);
  railyard::ctl::InspectOptions inspect;
  CLI::App* inspect_command = railyard::ctl::AddInspectCommand(app, inspect);
  railyard::ctl::WatchOptions watch;
  CLI::App* watch_command = railyard::ctl::AddWatchCommand(app, watch);
  railyard::ctl::SimCommandOptions sim;
  CLI::App* sim_command = railyard::ctl::AddSimCommand(app, sim);
  railyard::ctl::AlertsOptions alerts;
  CLI::App* alerts_command = railyard::ctl::AddAlertsCommand(app, alerts);

  if (auto exit_code = railyard::app::ParseCommandLine(app, argc, argv)) return *exit_code;
  spdlog::set_default_logger(spdlog::stderr_color_mt("railyardctl"));  // stdout is for results.
  spdlog::set_level(spdlog::level::from_str(log_level));
  if (demo_command->parsed()) return railyard::ctl::RunDemo(demo);
  if (get_command->parsed()) return railyard::ctl::RunGet(get);
  if (rolling_command->parsed()) return railyard::ctl::RunRollingRestart(rolling);
  if (snapshot_command->parsed()) return railyard::ctl::RunSnapshot(snapshot);
  if (lab_command->parsed()) return railyard::ctl::RunLab(*lab_command, lab);
  if (load_command->parsed()) return railyard::ctl::RunLoad(load);
  if (record_command->parsed()) return railyard::ctl::RunRecord(record);
  if (inspect_command->parsed()) return railyard::ctl::RunInspect(inspect);
  if (watch_command->parsed()) return railyard::ctl::RunWatch(watch);
  if (sim_command->parsed()) return railyard::ctl::RunSim(sim);
  if (alerts_command->parsed()) return railyard::ctl::RunAlerts(*alerts_command, alerts);
  for (CLI::App* command : admin_commands) {
    if (command->parsed()) return railyard::ctl::RunAdminCommand(command->get_name(), target);
  }
  return 2;
}
