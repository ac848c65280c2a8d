// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/replication_names.h"

namespace railyard::cluster {

std::string_view ReplicaStateName(admin::ReplicaState state) {
  switch (state) {
    case admin::REPLICA_CATCHING_UP:
      return "catching up";
    case admin::REPLICA_TAILING:
      return "tailing";
    case admin::REPLICA_DISCONNECTED:
      return "disconnected";
    case admin::REPLICA_STOPPED:
      return "stopped";
    default:
      return "unknown";
  }
}

std::string_view DocstoreRoleName(admin::DocstoreRole role) {
  switch (role) {
    case admin::DOCSTORE_UPDATER:
      return "updater";
    case admin::DOCSTORE_REPLICA:
      return "replica";
    default:
      return "-";
  }
}

namespace {
constexpr std::string_view kFollowerSuffix = " (replica)";
}  // namespace

std::string FollowerClientName(std::string_view node) {
  return std::string(node) + std::string(kFollowerSuffix);
}

bool IsFollowerClientName(std::string_view client_name) {
  return client_name.size() > kFollowerSuffix.size() &&
         client_name.substr(client_name.size() - kFollowerSuffix.size()) == kFollowerSuffix;
}

DrainFigures DrainFiguresOf(const admin::Telemetry& t) {
  DrainFigures f;
  for (const admin::SlotEntry& slot : t.slots()) {
    if (IsFollowerClientName(slot.client_name())) continue;
    ++f.client_slots;
    if (slot.busy()) ++f.busy;
  }
  return f;
}

bool ReplicaLagKnown(const admin::Replication& r, bool live) {
  return live && r.role() == admin::DOCSTORE_REPLICA && r.lag_known();
}

}  // namespace railyard::cluster
