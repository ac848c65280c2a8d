// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace railyard::ctl {

struct AlertsOptions {
  std::string rules;  // Empty: the built-in rules (resources/monitoring/railyard-alerts.textproto).
  bool prometheus = false;
  std::string job = "railyard";
  std::string out;  // Empty: stdout.
};

// `railyardctl alerts check|export`: checks a rules file, or writes it as Prometheus alerting
// rules (the shipped railyard-alerts.yml is this export of the shipped rules).
CLI::App* AddAlertsCommand(CLI::App& app, AlertsOptions& options);
int RunAlerts(CLI::App& command, const AlertsOptions& options);

}  // namespace railyard::ctl
