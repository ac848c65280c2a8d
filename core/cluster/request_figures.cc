// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/request_figures.h"

#include <algorithm>

namespace railyard::cluster {

bool IsLongPoll(std::string_view method) { return method == kLongPollMethod; }

double RequestP99Us(const admin::Throughput& throughput) {
  double p99 = 0;
  for (const admin::MethodStats& m : throughput.methods()) {
    if (!IsLongPoll(m.method())) p99 = std::max(p99, m.p99_us());
  }
  return p99;
}

double LatencyRequestsPerS(const admin::Throughput& throughput) {
  double rate = 0;
  for (const admin::MethodStats& m : throughput.methods()) {
    if (!IsLongPoll(m.method())) rate += m.requests_per_s();
  }
  return rate;
}

double RequestP50Us(const admin::Throughput& throughput) {
  double weight = 0, weighted = 0;
  for (const admin::MethodStats& m : throughput.methods()) {
    if (IsLongPoll(m.method())) continue;
    // Weighted by recent rate; a method idle lately still counts a little through its total.
    const double w = m.requests_per_s() > 0 ? m.requests_per_s() : (m.requests() > 0 ? 1e-9 : 0);
    weight += w;
    weighted += w * m.p50_us();
  }
  return weight > 0 ? weighted / weight : 0;
}

}  // namespace railyard::cluster
