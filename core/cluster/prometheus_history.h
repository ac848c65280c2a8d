// SPDX-License-Identifier: Apache-2.0
#pragma once

// A cluster's past from Prometheus (docs/figures.md, "History from Prometheus"): the figures that
// the nodes' /metrics carry, per node and step, as the telemetry snapshots a flight recorder would
// have kept, so that the console and railyardctl show them with the code that shows any
// recording. What /metrics does not carry (slots, pools, Bloom pages, commands) is absent from
// these snapshots, and the views show it as not recorded.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/cluster/prometheus_client.h"
#include "railyard/admin.pb.h"

namespace railyard::cluster {

struct PrometheusHistoryOptions {
  int64_t from_ms = 0;  // Unix milliseconds.
  int64_t to_ms = 0;
  // 0: the range over kDefaultSteps, at least kMinStepMs.
  int64_t step_ms = 0;
  // Label matchers every query gets, e.g. `job="railyard"` (empty: every target whose /metrics
  // has railyard_node_info).
  std::string match;
};

inline constexpr int64_t kMinStepMs = 5000;
inline constexpr int64_t kDefaultSteps = 720;

// The step used for `options`, and the window rates and quantiles are taken over: two steps, at
// least a minute (what the shipped alert rules use), so that a scrape interval up to 30 s gives
// every window at least two samples.
int64_t HistoryStepMs(const PrometheusHistoryOptions& options);
int64_t HistoryRateWindowMs(const PrometheusHistoryOptions& options);

// One node's past: a snapshot per step at which its target was up (Prometheus's `up` was 1), and
// the steps at which it was not.
struct PrometheusNodePast {
  std::string node;      // railyard_node_info's `node` label, else the target's instance.
  std::string instance;  // The target's `instance` label.
  std::vector<admin::Telemetry> snapshots;  // Oldest first.
  // Where a run of steps without a snapshot began (its first step), and why.
  struct Gap {
    int64_t unix_ms = 0;
    std::string reason;
  };
  std::vector<Gap> gaps;
};

// The range queries, in the order AssemblePrometheusHistory takes their answers.
std::vector<std::string> PrometheusHistoryQueries(const PrometheusHistoryOptions& options);

// Builds the nodes' pasts from the answers to PrometheusHistoryQueries(options), one per query.
// Nodes are ordered by name.
std::vector<PrometheusNodePast> AssemblePrometheusHistory(
    const PrometheusHistoryOptions& options, const std::vector<std::vector<PromSeries>>& answers);

// Runs the queries against `server` and assembles them. `progress` (may be empty) hears each
// query as it is sent (index, count). NotFound when no target in the range exports Railyard's
// metrics; other errors as QueryRange's, naming the query.
// Thread safety: callable from any thread.
base::Status FetchPrometheusHistory(const PrometheusServer& server,
                                    const PrometheusHistoryOptions& options,
                                    std::vector<PrometheusNodePast>* out,
                                    const std::function<void(size_t, size_t)>& progress = {});

}  // namespace railyard::cluster
