// SPDX-License-Identifier: Apache-2.0
#pragma once

// A client of the Prometheus HTTP API's range queries (GET /api/v1/query_range), over libcurl.
// Any server that speaks that API answers it the same: Prometheus, Thanos, Mimir, VictoriaMetrics.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace railyard::cluster {

struct PrometheusServer {
  // http://host:port or https://host:port, with the path prefix a proxy or Thanos puts before
  // /api/v1 if any (e.g. https://mimir.example/prometheus).
  std::string url;
  std::string bearer_token;  // Sent as "Authorization: Bearer ..." when set.
  std::string ca_file;       // https: the CAs to trust (PEM); empty: the system's.
  std::string cert_file;     // https: a client certificate (PEM) for mutual TLS, with key_file.
  std::string key_file;
  std::chrono::milliseconds timeout{30000};  // For each query, connecting included.
};

struct PromSample {
  int64_t unix_ms = 0;
  double value = 0;  // NaN where the server answered "NaN" (a quantile of no requests).
};

// One series of a range query's matrix: its labels (__name__ included where the query keeps it)
// and its samples, oldest first.
struct PromSeries {
  std::map<std::string, std::string> labels;
  std::vector<PromSample> samples;
};

// Evaluates `promql` at every `step_ms` from `from_ms` to `to_ms` (Unix milliseconds).
// Errors, each naming the server: Unavailable (no connection, HTTP 5xx), DeadlineExceeded
// (server.timeout passed), Unauthenticated (HTTP 401 or 403), InvalidArgument (HTTP 400 or 422:
// the server's own message, a bad query), ProtocolError (an answer that is not the API's JSON:
// another service at that address), ResourceExhausted (an answer too large to hold).
// Thread safety: callable from any thread; each call has its own connection.
base::Status QueryRange(const PrometheusServer& server, std::string_view promql, int64_t from_ms,
                        int64_t to_ms, int64_t step_ms, std::vector<PromSeries>* out);

// Parses a query_range answer's body (the API's JSON) into series. ProtocolError if it is not
// one; InvalidArgument with the server's message if it says "status": "error".
base::Status ParseQueryRangeAnswer(std::string_view json, std::vector<PromSeries>* out);

}  // namespace railyard::cluster
