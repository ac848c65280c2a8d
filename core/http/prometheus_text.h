// SPDX-License-Identifier: Apache-2.0
#pragma once

// Writing the Prometheus text exposition format, version 0.0.4: a family's HELP and TYPE lines
// once, then its samples, with label values escaped and numbers as Prometheus reads them.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace railyard::http {

inline constexpr char kPrometheusContentType[] = "text/plain; version=0.0.4; charset=utf-8";

using Labels = std::vector<std::pair<std::string, std::string>>;

// Thread safety: none.
class PrometheusText {
 public:
  // Starts a family; `type` is "counter", "gauge" or "histogram". A family already started is
  // not started again (its samples must follow its first lines, so callers group them).
  void Family(const std::string& name, const std::string& type, const std::string& help);
  // One sample of the current family (`name` may add a suffix such as _bucket).
  void Sample(const std::string& name, const Labels& labels, double value);
  // A family with a single sample, in one call.
  void Single(const std::string& name, const std::string& type, const std::string& help,
              double value, const Labels& labels = {});
  // A histogram's _bucket (cumulative, ending with le="+Inf"), _sum and _count samples.
  // `counts[i]`: observations in (bounds[i-1], bounds[i]]; counts has one more entry (+Inf).
  void Histogram(const std::string& name, const Labels& labels, const std::vector<double>& bounds,
                 const std::vector<uint64_t>& counts, double sum);

  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::vector<std::string> families_;
};

// A number as Prometheus parses it: integers without exponent or point, NaN and +Inf spelled its
// way.
std::string FormatPrometheusNumber(double value);

}  // namespace railyard::http
