// SPDX-License-Identifier: Apache-2.0
#include "core/sim/report.h"

#include <cstdio>
#include <string_view>

namespace railyard::sim {

namespace {

void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out->append(buffer);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

void AppendField(std::string* out, std::string_view key, double value, const char* format) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  out->append(",\"").append(key).append("\":").append(buffer);
}

void AppendCount(std::string* out, std::string_view key, unsigned long long value) {
  out->append(",\"").append(key).append("\":").append(std::to_string(value));
}

}  // namespace

std::string FormatJsonLine(const SimResult& r) {
  std::string out = "{\"scenario\":";
  AppendJsonString(&out, r.scenario);
  out += ",\"policy\":";
  AppendJsonString(&out, r.policy);
  AppendCount(&out, "seed", r.seed);
  AppendField(&out, "duration_s", r.duration_s, "%.3f");
  AppendCount(&out, "clients", r.clients);
  AppendCount(&out, "backends", r.backends);
  AppendCount(&out, "requests", r.requests);
  AppendCount(&out, "successes", r.successes);
  AppendField(&out, "success_rate", r.success_rate, "%.6f");
  AppendField(&out, "p50_ms", r.p50_ms, "%.3f");
  AppendField(&out, "p99_ms", r.p99_ms, "%.3f");
  AppendField(&out, "p999_ms", r.p999_ms, "%.3f");
  AppendField(&out, "retries_per_request", r.retries_per_request, "%.4f");
  AppendField(&out, "load_spread", r.load_spread, "%.3f");
  AppendField(&out, "connections_min", r.connections_min, "%.2f");
  AppendField(&out, "connections_max", r.connections_max, "%.2f");
  AppendCount(&out, "rejected", r.rejected);
  AppendCount(&out, "timeouts", r.timeouts);
  AppendCount(&out, "errors", r.errors);
  AppendCount(&out, "retries", r.retries);
  AppendCount(&out, "retries_refused", r.retries_refused);
  AppendCount(&out, "connects", r.connects);
  AppendCount(&out, "connect_failures", r.connect_failures);
  out += ",\"backend_attempts\":[";
  for (size_t i = 0; i < r.per_backend.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(r.per_backend[i].attempts);
  }
  out += "],\"backend_utilization\":[";
  for (size_t i = 0; i < r.per_backend.size(); ++i) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%s%.4f", i ? "," : "", r.per_backend[i].utilization);
    out += buffer;
  }
  out += "]";
  AppendCount(&out, "events", r.events);
  AppendField(&out, "wall_s", r.wall_s, "%.3f");
  AppendField(&out, "events_per_s", r.events_per_s, "%.0f");
  AppendField(&out, "sim_speed", r.sim_speed, "%.1f");
  out += "}";
  return out;
}

std::string FormatTable(const std::vector<SimResult>& results) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-22s %-13s %9s %9s %9s %9s %9s %7s %6s %13s\n", "scenario",
                "policy", "success%", "p50 ms", "p99 ms", "p99.9 ms", "retry/req", "spread", "rej",
                "conns min-max");
  out += line;
  for (const SimResult& r : results) {
    std::snprintf(
        line, sizeof line, "%-22s %-13s %9.3f %9.2f %9.2f %9.2f %9.4f %7.2f %6llu %6.1f-%-6.1f\n",
        r.scenario.c_str(), r.policy.c_str(), 100 * r.success_rate, r.p50_ms, r.p99_ms, r.p999_ms,
        r.retries_per_request, r.load_spread, static_cast<unsigned long long>(r.rejected),
        r.connections_min, r.connections_max);
    out += line;
  }
  return out;
}

}  // namespace railyard::sim
