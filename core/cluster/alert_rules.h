// SPDX-License-Identifier: Apache-2.0
#pragma once

// Alert rules (railyard.alerts.Rules, resources/monitoring/railyard-alerts.textproto): reading
// and checking them, the text an alert shows, and the same rules as Prometheus alerting rules, so
// that the console and Prometheus fire on the same conditions (docs/figures.md, "Alerts").

#include <string>
#include <string_view>

#include "core/rpc/status.h"
#include "railyard/alerts.pb.h"

namespace railyard::cluster {

// Reads a rules file. INVALID_ARGUMENT naming the file and what is wrong: a parse error (line and
// column), a rule without a name or figure, a name used twice or not a Prometheus alert name
// ([a-zA-Z_][a-zA-Z0-9_]*), a threshold where the figure needs one out of its range.
rpc::Status LoadAlertRules(const std::string& path, alerts::Rules* rules);
// The same checks over text; `name` says where it came from in errors.
rpc::Status ParseAlertRules(std::string_view text, std::string_view name, alerts::Rules* rules);
// The rules Railyard ships (resources/monitoring/railyard-alerts.textproto, compiled in).
std::string_view DefaultAlertRulesText();
alerts::Rules DefaultAlertRules();

// Whether the figure is compared with the rule's threshold (the others hold or not).
bool HasThreshold(alerts::Figure figure);
// "NODE_NOT_ANSWERING" and the like; "warning", "critical".
std::string FigureName(alerts::Figure figure);
std::string SeverityName(alerts::Severity severity);
// A figure's value as an alert shows it: "7.5%", "42 s", "120 ms", or the number.
std::string FormatFigure(alerts::Figure figure, double value);
// The rule's summary (or description) with {node} and {value} filled in.
std::string RenderAlertText(std::string_view text, const alerts::Rule& rule, std::string_view node,
                            double value);

// The rules as a Prometheus rules file (one group, "railyard"), for a scrape job named `job`:
// each rule's figure as its expression over /metrics (docs/figures.md, "Alerts"), its for,
// its severity as a label, {node} as the instance and {value} as the alert's value in the
// annotations.
std::string PrometheusAlertRules(const alerts::Rules& rules, std::string_view job = "railyard");

}  // namespace railyard::cluster
