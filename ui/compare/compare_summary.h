// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <vector>

#include "ui/compare/recording_series.h"

namespace railyard::ui {

// What the compare window's table says about one recording's series (the cluster's or one
// node's), computed from its buckets only.
//
// Where the recording carries latency histograms (the simulator's clients do), total_requests,
// p50_us and p99_us come from the histogram over the span: the calls the processes counted between
// the first snapshot and the last, and their percentiles, as the processes measured them
// (requests_exact, latency_exact). Otherwise total_requests integrates the request rate over the
// buckets (rate x bucket length), an approximation (rates are rounded, and a bucket's rate covers
// it only as far as its snapshots do), and percentiles, which do not add, are approximated too:
// the request-weighted median of the buckets' p50 and the request-weighted 99th percentile of the
// buckets' p99. failed integrates errors plus rejections the same way, and failed_share is failed
// over the integrated requests, like over like. NaN where there is nothing to compute from (no
// requests, no latency measured).
struct SeriesSummary {
  double span_s = 0;
  int nodes = 0;
  double total_requests = 0;
  double failed = 0;
  double failed_share = 0;
  double p50_us = 0;
  double p99_us = 0;
  bool requests_exact = false;
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
