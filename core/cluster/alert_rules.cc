// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/alert_rules.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "core/cluster/request_figures.h"
#include "core/cluster/text_files.h"

namespace railyard::cluster {

namespace {

bool IsAlertName(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// Where the figure's threshold may lie: a share within (0, 1], the others above 0.
rpc::Status CheckThreshold(const alerts::Rule& rule) {
  const double t = rule.threshold();
  const bool share =
      rule.figure() == alerts::DISK_FREE_SHARE || rule.figure() == alerts::FAILED_SHARE;
  if (!std::isfinite(t) || t <= 0 || (share && t > 1)) {
    return {rpc::Code::kInvalidArgument, "rule " + rule.name() + ": " + FigureName(rule.figure()) +
                                             " needs a threshold " +
                                             (share ? "in (0, 1], a share" : "above 0")};
  }
  return rpc::Status::Ok();
}

// A Prometheus double-quoted YAML string.
std::string Quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string Number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

std::string Duration(uint32_t seconds) {
  if (seconds % 3600 == 0) return std::to_string(seconds / 3600) + "h";
  if (seconds % 60 == 0) return std::to_string(seconds / 60) + "m";
  return std::to_string(seconds) + "s";
}

// The figure over /metrics, as docs/figures.md ("Alerts") states it.
std::string Expression(const alerts::Rule& rule, std::string_view job) {
  const std::string t = Number(rule.threshold());
  switch (rule.figure()) {
    case alerts::NODE_NOT_ANSWERING:
      return "up{job=\"" + std::string(job) + "\"} == 0";
    case alerts::NODE_LAME_DUCK:
      return "railyard_node_state{state=\"lame_duck\"} == 1";
    case alerts::NODE_STARTING:
      return "railyard_node_state{state=\"starting\"} == 1";
    case alerts::DISK_FREE_SHARE:
      return "railyard_data_dir_free_bytes / railyard_data_dir_size_bytes < " + t;
    case alerts::STORAGE_CORRUPTION:
      return "increase(railyard_storage_corruptions_total[15m]) > 0";
    case alerts::WRITES_REFUSED:
      return "railyard_storage_writes_refused == 1";
    case alerts::REPLICATION_LAG_SECONDS:
      return "railyard_replication_lag_seconds > " + t;
    case alerts::REPLICA_DISCONNECTED:
      return "railyard_replication_state{state=\"REPLICA_DISCONNECTED\"} == 1";
    case alerts::REPLICA_STOPPED:
      return "railyard_replication_state{state=\"REPLICA_STOPPED\"} == 1";
    case alerts::FAILED_SHARE:
      return "sum by (job, instance) (rate(railyard_request_errors_total[1m])) / sum by (job, "
             "instance) (rate(railyard_requests_total[1m])) > " +
             t;
    case alerts::SERVER_P99_MS:
      // The slowest method's, long-polls apart (cluster::RequestP99Us).
      return "max by (job, instance) (histogram_quantile(0.99, sum by (job, instance, method, le) "
             "(rate(railyard_request_duration_seconds_bucket{method!=\"" +
             std::string(kLongPollMethod) + "\"}[1m])))) * 1000 > " + t;
    default:
      return "vector(0) > 1";  // Not reached: ParseAlertRules refuses an unknown figure.
  }
}

// `text` with each {node} and {value} replaced.
std::string Fill(std::string_view text, std::string_view node, std::string_view value) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text.substr(i, 6) == "{node}") {
      out += node;
      i += 6;
    } else if (text.substr(i, 7) == "{value}") {
      out += value;
      i += 7;
    } else {
      out += text[i++];
    }
  }
  return out;
}

// {node} and {value} in Prometheus' template language.
std::string PrometheusText(std::string_view text, alerts::Figure figure) {
  std::string value = "{{ $value }}";
  if (figure == alerts::DISK_FREE_SHARE || figure == alerts::FAILED_SHARE) {
    value = "{{ $value | humanizePercentage }}";
  } else if (figure == alerts::REPLICATION_LAG_SECONDS) {
    value = "{{ $value | humanizeDuration }}";
  } else if (figure == alerts::SERVER_P99_MS) {
    value = "{{ $value | printf \"%.0f\" }} ms";
  }
  return Fill(text, "{{ $labels.instance }}", value);
}

}  // namespace

rpc::Status ParseAlertRules(std::string_view text, std::string_view name, alerts::Rules* rules) {
  alerts::Rules parsed;
  if (rpc::Status s = ParseTextProto(text, name, &parsed); !s.ok()) return s;
  std::set<std::string> names;
  for (const alerts::Rule& rule : parsed.rule()) {
    auto bad = [&](const std::string& why) {
      return rpc::Status(rpc::Code::kInvalidArgument, std::string(name) + ": " + why);
    };
    if (!IsAlertName(rule.name())) {
      return bad("rule '" + rule.name() +
                 "': a name is letters, digits and _ (a Prometheus "
                 "alert name)");
    }
    if (!names.insert(rule.name()).second) return bad("rule " + rule.name() + " is there twice");
    if (rule.figure() == alerts::FIGURE_UNSPECIFIED)
      return bad("rule " + rule.name() + ": no figure");
    if (HasThreshold(rule.figure())) {
      if (rpc::Status s = CheckThreshold(rule); !s.ok()) return bad(s.message());
    }
    if (rule.severity() == alerts::SEVERITY_UNSPECIFIED) {
      return bad("rule " + rule.name() + ": no severity (WARNING or CRITICAL)");
    }
    if (rule.summary().empty()) return bad("rule " + rule.name() + ": no summary");
  }
  *rules = std::move(parsed);
  return rpc::Status::Ok();
}

rpc::Status LoadAlertRules(const std::string& path, alerts::Rules* rules) {
  std::ifstream in(path);
  if (!in) return {rpc::Code::kInvalidArgument, "cannot read alert rules " + path};
  std::stringstream text;
  text << in.rdbuf();
  return ParseAlertRules(text.str(), path, rules);
}

alerts::Rules DefaultAlertRules() {
  alerts::Rules rules;
  // Checked by a test (tst_alert_rules) against the same file: cannot fail here.
  (void)ParseAlertRules(DefaultAlertRulesText(), "the built-in alert rules", &rules);
  return rules;
}

bool HasThreshold(alerts::Figure figure) {
  return figure == alerts::DISK_FREE_SHARE || figure == alerts::REPLICATION_LAG_SECONDS ||
         figure == alerts::FAILED_SHARE || figure == alerts::SERVER_P99_MS;
}

std::string FigureName(alerts::Figure figure) { return alerts::Figure_Name(figure); }

std::string SeverityName(alerts::Severity severity) {
  switch (severity) {
    case alerts::WARNING:
      return "warning";
    case alerts::CRITICAL:
      return "critical";
    default:
      return "none";
  }
}

std::string FormatFigure(alerts::Figure figure, double value) {
  char buffer[48];
  if (figure == alerts::DISK_FREE_SHARE || figure == alerts::FAILED_SHARE) {
    std::snprintf(buffer, sizeof buffer, "%.1f%%", value * 100);
  } else if (figure == alerts::REPLICATION_LAG_SECONDS) {
    std::snprintf(buffer, sizeof buffer, "%.0f s", value);
  } else if (figure == alerts::SERVER_P99_MS) {
    std::snprintf(buffer, sizeof buffer, "%.0f ms", value);
  } else {
    std::snprintf(buffer, sizeof buffer, "%g", value);
  }
  return buffer;
}

std::string RenderAlertText(std::string_view text, const alerts::Rule& rule, std::string_view node,
                            double value) {
  return Fill(text, node, FormatFigure(rule.figure(), value));
}

std::string PrometheusAlertRules(const alerts::Rules& rules, std::string_view job) {
  std::string out =
      "# Prometheus alerting rules for railyard-node, written by `railyardctl alerts export\n"
      "# --prometheus` from railyard-alerts.textproto (edit that file, not this one). Load with\n"
      "# `rule_files:` in prometheus.yml; the scrape job is named \"" +
      std::string(job) +
      "\" (docs/guide.md, \"Monitoring\").\n"
      "groups:\n"
      "  - name: railyard\n"
      "    rules:\n";
  bool first = true;
  for (const alerts::Rule& rule : rules.rule()) {
    if (!first) out += "\n";
    first = false;
    out += "      - alert: " + rule.name() + "\n";
    out += "        expr: " + Expression(rule, job) + "\n";
    if (rule.for_s() > 0) out += "        for: " + Duration(rule.for_s()) + "\n";
    out += "        labels:\n";
    out += "          severity: " + SeverityName(rule.severity()) + "\n";
    out += "        annotations:\n";
    out += "          summary: " + Quoted(PrometheusText(rule.summary(), rule.figure())) + "\n";
    if (!rule.description().empty()) {
      out += "          description: " + Quoted(PrometheusText(rule.description(), rule.figure())) +
             "\n";
    }
  }
  return out;
}

}  // namespace railyard::cluster
