// SPDX-License-Identifier: Apache-2.0
#pragma once

// A node's flight recorder as a viewer reads it (admin.History, every page from `from_unix_ms`):
// its snapshots' times, oldest first; empty if the node did not answer. For tests that wait until a
// node has recorded something before a console looks. Header-only; needs railyard_cluster.

#include <QtGlobal>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/cluster/admin_client.h"
#include "core/rpc/endpoint.h"

namespace railyard::testing {

inline std::vector<qint64> FlightRecorderTimes(const rpc::Endpoint& admin,
                                               const std::string& viewer_token,
                                               int64_t from_unix_ms = 0) {
  cluster::AdminClient viewer(admin, viewer_token, "tst");
  std::vector<qint64> times;
  if (!viewer.Connect(std::chrono::seconds(5)).ok()) return times;
  admin::History page;
  for (int64_t from = from_unix_ms; viewer.History(from, 0, 0, &page).ok();) {
    for (const auto& t : page.snapshots()) times.push_back(t.unix_ms());
    if (!page.more() || page.next_from_unix_ms() <= from) break;
    from = page.next_from_unix_ms();
  }
  return times;
}

}  // namespace railyard::testing
