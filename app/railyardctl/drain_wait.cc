// SPDX-License-Identifier: Apache-2.0
#include "app/railyardctl/drain_wait.h"

#include <cstdio>

#include "app/railyardctl/admin_commands.h"
#include "core/cluster/drain_wait.h"

namespace railyard::ctl {

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
  const auto plural = [](int n) { return n == 1 ? "" : "s"; };
  cluster::DrainWaitOptions options;
  options.deadline = deadline;
  options.on_change = [&](const cluster::DrainFigures& f) {
    std::printf("%s: waiting: %d client slot%s held, %d request%s in flight\n", name.c_str(),
                f.client_slots, plural(f.client_slots), f.busy, plural(f.busy));
    std::fflush(stdout);
  };
  cluster::DrainFigures last;
  const rpc::Status s = cluster::WaitUntilDrained(client, options, &last);
  if (s.ok()) {
    std::printf("%s: drained: no requests in flight, no client slots held\n", name.c_str());
    std::fflush(stdout);
    return kExitOk;
  }
  if (s.code() == rpc::Code::kDeadlineExceeded) {
    std::fprintf(stderr,
                 "railyardctl: %s: not drained before the timeout: %d client slot%s still "
                 "held, %d request%s in flight\n",
                 name.c_str(), last.client_slots, plural(last.client_slots), last.busy,
                 plural(last.busy));
    return kExitDrainTimeout;
  }
  std::fprintf(stderr, "railyardctl: %s: %s\n", name.c_str(), s.ToString().c_str());
  return ExitFor(s);
}

}  // namespace railyard::ctl
