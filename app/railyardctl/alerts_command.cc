// SPDX-License-Identifier: Apache-2.0
#include "app/railyardctl/alerts_command.h"

#include <cstdio>
#include <fstream>

#include "app/railyardctl/admin_commands.h"
#include "core/cluster/alert_rules.h"

namespace railyard::ctl {

namespace {

// The rules file's rules, or the built-in ones; kExitUsage (said) when they cannot be read.
int ReadRules(const AlertsOptions& o, alerts::Rules* rules) {
  if (o.rules.empty()) {
    *rules = cluster::DefaultAlertRules();
    return kExitOk;
  }
  if (rpc::Status s = cluster::LoadAlertRules(o.rules, rules); !s.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", s.message().c_str());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

CLI::App* AddAlertsCommand(CLI::App& app, AlertsOptions& o) {
  CLI::App* alerts =
      app.add_subcommand("alerts", "Alert rules: check a rules file, or export it for Prometheus");
  alerts->require_subcommand(1);
  CLI::App* check = alerts->add_subcommand(
      "check", "Check a rules file and list its rules (name, figure, threshold, for, severity)");
  check->add_option("--rules", o.rules, "Rules file (text format; default: the built-in rules)")
      ->check(CLI::ExistingFile);
  CLI::App* exported = alerts->add_subcommand(
      "export", "Write the rules as a Prometheus rules file (what the package ships)");
  exported->add_option("--rules", o.rules, "Rules file (text format; default: the built-in rules)")
      ->check(CLI::ExistingFile);
  exported->add_flag("--prometheus", o.prometheus, "Prometheus alerting rules (the only format)")
      ->required();
  exported->add_option("--job", o.job, "The Prometheus scrape job of the nodes")
      ->capture_default_str();
  exported->add_option("-o,--out", o.out, "Write to this file instead of stdout");
  return alerts;
}

int RunAlerts(CLI::App& command, const AlertsOptions& o) {
  alerts::Rules rules;
  if (int code = ReadRules(o, &rules); code != kExitOk) return code;
  if (command.got_subcommand("check")) {
    for (const alerts::Rule& r : rules.rule()) {
      std::printf("%-28s %-24s %-10s for %5us  %s\n", r.name().c_str(),
                  cluster::FigureName(r.figure()).c_str(),
                  cluster::HasThreshold(r.figure())
                      ? cluster::FormatFigure(r.figure(), r.threshold()).c_str()
                      : "-",
                  r.for_s(), cluster::SeverityName(r.severity()).c_str());
    }
    std::fprintf(stderr, "alerts: %d rules, all valid\n", rules.rule_size());
    return kExitOk;
  }
  const std::string text = cluster::PrometheusAlertRules(rules, o.job);
  if (o.out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return std::fflush(stdout) == 0 ? kExitOk : kExitFailed;
  }
  std::ofstream out(o.out, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "railyardctl: cannot write %s\n", o.out.c_str());
    return kExitFailed;
  }
  std::fprintf(stderr, "alerts: %d rules written to %s\n", rules.rule_size(), o.out.c_str());
  return kExitOk;
}

}  // namespace railyard::ctl
