// SPDX-License-Identifier: Apache-2.0
#include "app/railyardctl/drain_wait.h"

#include <cstdio>
#include <thread>

#include "app/railyardctl/admin_commands.h"
#include "core/cluster/replication_names.h"

namespace railyard::ctl {

namespace {

// Telemetry is cheap for the node (a snapshot of counters), so a few polls a second cost nothing
// and a script moves on within this of the last client leaving.
constexpr std::chrono::milliseconds kPollEvery{200};

}  // namespace

std::optional<std::chrono::milliseconds> ParseTimeout(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 9) return std::nullopt;
  const long long n = std::stoll(text.substr(0, digits));
  const std::string unit = text.substr(digits);
  if (unit.empty() || unit == "s") return std::chrono::seconds(n);
  if (unit == "ms") return std::chrono::milliseconds(n);
  if (unit == "m") return std::chrono::minutes(n);
  return std::nullopt;
}

int WaitUntilDrained(cluster::AdminClient& client, const std::string& name,
                     std::chrono::steady_clock::time_point deadline) {
  int last_slots = -1, last_busy = -1;
  while (true) {
    admin::Telemetry telemetry;
    if (rpc::Status s = client.Telemetry(&telemetry); !s.ok()) {
      std::fprintf(stderr, "railyardctl: %s: %s\n", name.c_str(), s.ToString().c_str());
      return ExitFor(s);
    }
    // An updater's followers stay connected while it drains: they are not its clients.
    const cluster::DrainFigures figures = cluster::DrainFiguresOf(telemetry);
    const int slots = figures.client_slots;
    const int busy = figures.busy;
    if (slots == 0) {
      std::printf("%s: drained: no requests in flight, no client slots held\n", name.c_str());
      std::fflush(stdout);
      return kExitOk;
    }
    if (slots != last_slots || busy != last_busy) {
      std::printf("%s: waiting: %d client slot%s held, %d request%s in flight\n", name.c_str(),
                  slots, slots == 1 ? "" : "s", busy, busy == 1 ? "" : "s");
      std::fflush(stdout);
      last_slots = slots;
      last_busy = busy;
    }
    if (std::chrono::steady_clock::now() + kPollEvery > deadline) {
      std::fprintf(stderr,
                   "railyardctl: %s: not drained before the timeout: %d client slot%s still "
                   "held, %d request%s in flight\n",
                   name.c_str(), slots, slots == 1 ? "" : "s", busy, busy == 1 ? "" : "s");
      return kExitDrainTimeout;
    }
    std::this_thread::sleep_for(kPollEvery);
  }
}

}  // namespace railyard::ctl
