// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/cluster/prometheus_history.h"

namespace railyard::trace {
class RecordingWriter;
}

namespace railyard::cluster {

// A time range of a Prometheus server as the command lines name it (railyardctl record
// --prometheus, railyard --prometheus).
struct PrometheusSourceSpec {
  std::string url;
  std::string token_file;  // Its first line is the bearer token.
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  std::string match;          // Label matchers, e.g. job="railyard".
  std::string since = "1h";   // The range: from `until` less this...
  std::string until = "now";  // ...to this (ParseTimePoint).
  std::string step;           // Empty: automatic (HistoryStepMs).
  double timeout_s = 30;      // Per query.
};

// The server and range `spec` names, as of `now_ms`. InvalidArgument naming the flag that is
// wrong, or a token file that cannot be read or holds no token (read as ReadTokenFile reads).
base::Status ResolvePrometheusSource(const PrometheusSourceSpec& spec, int64_t now_ms,
                                     PrometheusServer* server, PrometheusHistoryOptions* options);

// Creates a new recording at `path` (an existing file is an error, said before any query: a past
// is not appended to another), then fetches the range into it. `progress` hears each query as
// FetchPrometheusHistory's. On an error after the file was created, it is removed. `nodes` and
// `snapshots` (may be null) get what was written.
base::Status RecordPrometheusHistory(const PrometheusServer& server,
                                     const PrometheusHistoryOptions& options,
                                     const std::string& path,
                                     const std::function<void(size_t, size_t)>& progress,
                                     size_t* nodes, uint64_t* snapshots);

// Writes the nodes' pasts from Prometheus into a recording that replays like any other: their
// snapshots in time order, each gap as an "unreachable" event with its reason (so a replay shows
// the node down there), and the nodes in `pasts`' order. Commits; the caller closes the writer.
// `snapshots` (may be null) gets how many were written. Errors: the writer's.
base::Status WritePrometheusHistory(const std::vector<PrometheusNodePast>& pasts,
                                    trace::RecordingWriter* writer, uint64_t* snapshots);

}  // namespace railyard::cluster
