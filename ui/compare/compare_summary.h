// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <vector>

#include "ui/compare/recording_series.h"

namespace railyard::ui {

// What the compare window's table says about one recording's series (the cluster's or one
// node's), computed from its buckets only.
//
// total_requests integrates the request rate over the buckets (rate x bucket length); failed the
// same for errors plus rejections; failed_share = failed / total_requests. p50_us and p99_us come
// from the recording's latency histograms where it carries them (the simulator's clients do):
// exact over the span, as the process measured them (latency_exact). Otherwise percentiles do not
// add, and they are approximations: the request-weighted median of the buckets' p50 and the
// request-weighted 99th percentile of the buckets' p99. NaN where there is nothing to compute from
// (no requests, no latency measured).
struct SeriesSummary {
  double span_s = 0;
  int nodes = 0;
  double total_requests = 0;
  double failed = 0;
  double failed_share = 0;
  double p50_us = 0;
  double p99_us = 0;
  bool latency_exact = false;
};

// `latency`: the histogram over the span of what `points` show (RecordingSeries::Latency), or
// null; one with no latencies in it counts as none.
SeriesSummary Summarize(const RecordingSeries& recording, const std::vector<SeriesPoint>& points,
                        const base::LatencyHistogram* latency = nullptr);

// b / a, NaN when a is 0 or either is NaN: a ratio that cannot be computed is shown as a dash, not
// as infinity.
double Ratio(double a, double b);

// The request-weighted `quantile` (0..1) of `values`, skipping NaN; NaN if the weights sum to 0.
// Exposed for the tests.
double WeightedQuantile(std::vector<std::pair<double, double>> value_weight, double quantile);

}  // namespace railyard::ui
