// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/drain_wait.h"

#include <thread>

namespace railyard::cluster {

namespace {

// Telemetry is cheap for the node (a snapshot of counters), so a few polls a second cost nothing
// and the caller moves on within this of the last client leaving.
constexpr std::chrono::milliseconds kPollEvery{200};

}  // namespace

rpc::Status WaitUntilDrained(AdminClient& client, const DrainWaitOptions& options,
                             DrainFigures* last) {
  *last = {-1, -1};
  while (true) {
    admin::Telemetry telemetry;
    if (rpc::Status s = client.Telemetry(&telemetry); !s.ok()) return s;
    const DrainFigures figures = DrainFiguresOf(telemetry);
    const bool changed = figures.client_slots != last->client_slots || figures.busy != last->busy;
    *last = figures;
    if (figures.client_slots == 0) return rpc::Status::Ok();
    if (changed && options.on_change) options.on_change(figures);
    if (options.stop && options.stop->load(std::memory_order_relaxed)) {
      return {rpc::Code::kCancelled, "stopped while waiting for clients to leave"};
    }
    if (std::chrono::steady_clock::now() + kPollEvery > options.deadline) {
      return {rpc::Code::kDeadlineExceeded, "clients still held slots at the deadline"};
    }
    std::this_thread::sleep_for(kPollEvery);
  }
}

}  // namespace railyard::cluster
