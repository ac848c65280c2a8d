// SPDX-License-Identifier: Apache-2.0
#pragma once

// A server's request latency, defined once (docs/figures.md, "Request latency") for railyardctl,
// the console and the dashboard's queries: handler time of the requests it served, long-polls
// apart. A long-poll (a replica's repl.Fetch waiting at the head for new blocks) takes as long as
// the cluster is quiet by design; counted as latency, an idle updater read as a 1 s p99.

#include <string_view>

#include "railyard/admin.pb.h"
#include "railyard/replication.boxcar.h"

namespace railyard::cluster {

// The one method whose handler waits for news by design: a replica's fetch at the head.
inline constexpr std::string_view kLongPollMethod = repl::ReplicationService::kFetchMethod;
// Methods whose handlers wait for news by design: kLongPollMethod.
bool IsLongPoll(std::string_view method);

// The slowest of the request methods' percentiles (long-polls apart), in microseconds; 0 when none
// served a request in the window.
double RequestP99Us(const admin::Throughput& throughput);
// Of the request methods (long-polls apart), the p50s weighted by each method's recent rate.
double RequestP50Us(const admin::Throughput& throughput);
// Requests/s of the methods those percentiles are of (long-polls apart): where it is 0 the latency
// was not measured, however busy the long-polls keep the node (an updater that only answers its
// replicas' fetches), and a view says so rather than show 0.
double LatencyRequestsPerS(const admin::Throughput& throughput);

}  // namespace railyard::cluster
