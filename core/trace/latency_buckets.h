// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/base/latency_histogram.h"
#include "railyard/admin.pb.h"

namespace railyard::trace {

// Telemetry's cumulative latency histograms (admin.LatencyBuckets) to and from
// base::LatencyHistogram, so that a recording's reader computes the same percentiles over a span
// as the process that measured them (Compare's p50 and p99 against `railyardctl sim`).

// Writes `histogram` (cumulative since the process started) into `out`, replacing it.
void ToLatencyBuckets(const base::LatencyHistogram& histogram, admin::LatencyBuckets* out);

// The latencies measured between two snapshots of one process: `later` minus `earlier` (either
// may be empty). Where a bucket of `later` holds fewer than `earlier`'s, the process restarted in
// between and `later` alone is what it measured since. The maximum is `later`'s, the largest the
// span can have held.
base::LatencyHistogram LatencyBetween(const admin::LatencyBuckets& earlier,
                                      const admin::LatencyBuckets& later);

}  // namespace railyard::trace
