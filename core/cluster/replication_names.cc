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

std::string FollowerClientName(std::string_view node) { return std::string(node) + " (replica)"; }

bool ReplicaLagKnown(const admin::Replication& r, bool live) {
  return live && r.role() == admin::DOCSTORE_REPLICA && r.lag_known();
}

}  // namespace railyard::cluster
