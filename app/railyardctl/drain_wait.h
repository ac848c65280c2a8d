// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "core/cluster/admin_client.h"

namespace railyard::ctl {

// `railyardctl drain --wait` gave up: the node still had requests in flight or client slots held
// when --timeout ran out. Distinct from the other exit codes so that a rolling-restart script can
// tell "not drained yet" from "could not drain".
inline constexpr int kExitDrainTimeout = 5;

// "60s", "90", "2m", "500ms" (a bare number is seconds); nullopt for anything else.
std::optional<std::chrono::milliseconds> ParseTimeout(const std::string& text);

// Polls `client`'s telemetry (bounded by `deadline`) until the node has no client slots held, and
// so no request in flight (an updater's replicas' follower connections are not clients' and stay),
// printing each change of those figures as a line for `name`. Returns kExitOk once drained,
// kExitDrainTimeout (having said so on stderr) at the deadline, or the exit code of a failed
// telemetry call.
int WaitUntilDrained(cluster::AdminClient& client, const std::string& name,
                     std::chrono::steady_clock::time_point deadline);

}  // namespace railyard::ctl
