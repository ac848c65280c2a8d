// SPDX-License-Identifier: Apache-2.0
#include "ui/compare/compare_summary.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace railyard::ui {

double WeightedQuantile(std::vector<std::pair<double, double>> value_weight, double quantile) {
  std::erase_if(value_weight, [](const std::pair<double, double>& vw) {
    return std::isnan(vw.first) || !(vw.second > 0);
  });
  double total = 0;
  for (const auto& [value, weight] : value_weight) total += weight;
  if (total <= 0) return kNoFigure;
  std::sort(value_weight.begin(), value_weight.end());
  // The smallest value whose cumulative weight reaches the quantile's share.
  const double target = quantile * total;
  double cumulative = 0;
  for (const auto& [value, weight] : value_weight) {
    cumulative += weight;
    if (cumulative >= target) return value;
  }
  return value_weight.back().first;
}

SeriesSummary Summarize(const RecordingSeries& recording, const std::vector<SeriesPoint>& points,
                        const base::LatencyHistogram* latency) {
  SeriesSummary s;
  s.span_s = recording.SpanSeconds();
  s.nodes = static_cast<int>(recording.nodes.size());
  std::vector<std::pair<double, double>> p50, p99;
  for (size_t b = 0; b < points.size(); ++b) {
    const SeriesPoint& p = points[b];
    if (p.snapshots == 0) continue;
    const double bucket_s = recording.CoveredSeconds(b);
    s.total_requests += double(p.requests_per_s) * bucket_s;
    s.failed += (double(p.errors_per_s) + double(p.rejections_per_s)) * bucket_s;
    if (p.latency_snapshots == 0) continue;
    p50.emplace_back(p.p50_us, p.requests_per_s);
    p99.emplace_back(p.p99_us, p.requests_per_s);
  }
  s.failed_share = s.total_requests > 0 ? s.failed / s.total_requests : kNoFigure;
  if (latency && latency->count() > 0) {
    s.total_requests = double(latency->count());
    s.requests_exact = true;
    s.p50_us = latency->PercentileUs(0.5);
    s.p99_us = latency->PercentileUs(0.99);
    s.latency_exact = true;
  } else {
    s.p50_us = WeightedQuantile(std::move(p50), 0.5);
    s.p99_us = WeightedQuantile(std::move(p99), 0.99);
  }
  return s;
}

double Ratio(double a, double b) {
  if (std::isnan(a) || std::isnan(b) || a == 0) return kNoFigure;
  return b / a;
}

}  // namespace railyard::ui
