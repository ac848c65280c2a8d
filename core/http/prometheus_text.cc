// SPDX-License-Identifier: Apache-2.0
#include "core/http/prometheus_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace railyard::http {

namespace {

std::string EscapeLabelValue(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string EscapeHelp(const std::string& help) {
  std::string out;
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string FormatPrometheusNumber(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // Whole numbers up to 2^53 print exactly, without exponent; the rest with round-trip precision.
  if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
    return buffer;
  }
  // The shortest form that reads back as the same double (0.00025, not 2.5000000000000001e-04).
  char buffer[32];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

void PrometheusText::Family(const std::string& name, const std::string& type,
                            const std::string& help) {
  if (std::find(families_.begin(), families_.end(), name) != families_.end()) return;
  families_.push_back(name);
  text_ += "# HELP " + name + " " + EscapeHelp(help) + "\n";
  text_ += "# TYPE " + name + " " + type + "\n";
}

void PrometheusText::Sample(const std::string& name, const Labels& labels, double value) {
  text_ += name;
  if (!labels.empty()) {
    text_ += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i) text_ += ',';
      text_ += labels[i].first + "=\"" + EscapeLabelValue(labels[i].second) + "\"";
    }
    text_ += '}';
  }
  text_ += ' ' + FormatPrometheusNumber(value) + '\n';
}

void PrometheusText::Single(const std::string& name, const std::string& type,
                            const std::string& help, double value, const Labels& labels) {
  Family(name, type, help);
  Sample(name, labels, value);
}

void PrometheusText::Histogram(const std::string& name, const Labels& labels,
                               const std::vector<double>& bounds,
                               const std::vector<uint64_t>& counts, double sum) {
  uint64_t cumulative = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    cumulative += counts[i];
    Labels with_le = labels;
    with_le.emplace_back("le", i < bounds.size() ? FormatPrometheusNumber(bounds[i]) : "+Inf");
    Sample(name + "_bucket", with_le, static_cast<double>(cumulative));
  }
  Sample(name + "_sum", labels, sum);
  Sample(name + "_count", labels, static_cast<double>(cumulative));
}

}  // namespace railyard::http
