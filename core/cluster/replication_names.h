// SPDX-License-Identifier: Apache-2.0
#pragma once

// The words railyardctl, the console and the node's logs use for replication states and roles,
// in one place so they agree.

#include <string>
#include <string_view>

#include "railyard/admin.pb.h"

namespace railyard::cluster {

// "catching up", "tailing", "disconnected", "stopped"; "unknown" otherwise.
std::string_view ReplicaStateName(admin::ReplicaState state);
// "updater", "replica"; "-" when the node reports no store role.
std::string_view DocstoreRoleName(admin::DocstoreRole role);
// docs/figures.md, "Replication lag": a replica's lag is known only while its telemetry is current
// (`live`: its node answered the latest poll) and it reports a live follow connection. Every
// surface shows "unknown" otherwise, never 0 or the last value.
bool ReplicaLagKnown(const admin::Replication& r, bool live = true);
// The client name a replica's follower gives the updater ("node1 (replica)"), so slot tables can
// tell follower connections from clients'.
std::string FollowerClientName(std::string_view node);

}  // namespace railyard::cluster
