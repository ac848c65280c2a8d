// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/history_fetch.h"

#include <algorithm>

namespace railyard::cluster {

namespace {
constexpr std::chrono::milliseconds kPageTimeout{5000};
}  // namespace

rpc::Status FetchHistory(AdminClient& client, int64_t from_unix_ms, int64_t to_unix_ms,
                         const HistoryFetchLimits& limits,
                         const std::function<bool(admin::History& page)>& on_page,
                         HistoryFetchResult* result) {
  *result = HistoryFetchResult();
  int64_t from = from_unix_ms;
  while (true) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= limits.deadline || result->bytes >= limits.max_bytes) return rpc::Status::Ok();
    // A page waits no longer than the deadline, nor than the client's default (5 s).
    std::chrono::milliseconds timeout{};
    if (limits.deadline - now < kPageTimeout) {
      timeout =
          std::max(std::chrono::milliseconds(1),
                   std::chrono::duration_cast<std::chrono::milliseconds>(limits.deadline - now));
    }
    admin::History page;
    if (rpc::Status s = client.History(from, to_unix_ms, 0, &page, timeout); !s.ok()) return s;
    for (const admin::Telemetry& t : page.snapshots()) result->bytes += t.ByteSizeLong();
    result->snapshots += static_cast<uint64_t>(page.snapshots_size());
    // A page that does not move on would be asked for again for ever: the end, as far as the
    // node can tell.
    const bool last = !page.more() || page.next_from_unix_ms() <= from;
    const int64_t next = page.next_from_unix_ms();
    if (!on_page(page)) return rpc::Status::Ok();
    if (last) {
      result->complete = true;
      return rpc::Status::Ok();
    }
    from = next;
  }
}

}  // namespace railyard::cluster
