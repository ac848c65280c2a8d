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
// Whether a slot's client name is a replica's follower (FollowerClientName's form).
bool IsFollowerClientName(std::string_view client_name);
// A node's figures for a drain: the client slots held and requests in flight, a replica's
// follower connections to its updater left out (they stay while their replica follows: the
// seeds' drain moves clients, not replication).
struct DrainFigures {
  int client_slots = 0;
  int busy = 0;
};
DrainFigures DrainFiguresOf(const admin::Telemetry& t);

}  // namespace railyard::cluster
