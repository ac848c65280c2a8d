// SPDX-License-Identifier: Apache-2.0
#pragma once

// A rolling restart: for each chosen node in turn, drain it, wait until no client holds a slot
// on it (an updater's followers aside), restart it (by a function the caller gives: the lab, a
// systemd unit, a command), wait until it serves again and, a replica, has caught up with its
// updater, undrain it; stop at the first failure. Shared by railyardctl and the console.

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "core/cluster/doc_copies.h"
#include "core/rpc/status.h"
#include "railyard/admin.pb.h"

namespace railyard::cluster {

struct RollingRestartOptions {
  // The whole cluster (for the last-replica check), with operator tokens.
  std::vector<CopyTarget> cluster;
  // The nodes to restart, by name, in order; empty: every node that serves (load clients
  // aside), replicas first, the updater last.
  std::vector<std::string> nodes;
  // Restarts one node; returns once its process was started again (not once it serves).
  std::function<rpc::Status(const std::string& node)> restart;
  // One line per step; may be empty.
  std::function<void(const std::string& line)> progress;
  // Called as node `index` (0-based) of `count` starts; may be empty.
  std::function<void(size_t index, size_t count, const std::string& node)> node_started;
  // Read before each node and at each wait: once true, the restart stops (CANCELLED): before the
  // next node; or, draining, after undraining the node again; or, waiting for a restarted node
  // to serve, at once (a restarted node serves undrained by itself). A restart command under way
  // is let finish. May be null.
  const std::atomic<bool>* stop = nullptr;
  // The name the nodes log the drains and undrains under (their recent commands).
  std::string client_name = "railyardctl-rolling-restart";
  std::chrono::milliseconds drain_timeout{60000};
  std::chrono::milliseconds serve_timeout{120000};  // Until it serves and has caught up.
  // Refused by default: draining the last replica that serves leaves every read on the updater
  // (or on none).
  bool allow_last_replica = false;
};

// The order a rolling restart takes nodes in when none are named: replicas first, then those
// whose docstore role is not known (or that have none), the updater last (writes stop once, at
// the end); a process that serves nothing (a load client) is left out. `telemetry[i]` null: not
// known. Returns indexes into `telemetry`. The console offers its nodes in this order.
std::vector<size_t> RestartOrder(const std::vector<const admin::Telemetry*>& telemetry);

// OK once every node was restarted and serves; else the first failure, naming the node and the
// step (the node is left as that step left it: drained, stopped or not caught up).
// FAILED_PRECONDITION for the last serving replica without allow_last_replica; NOT_FOUND for a
// node not in the cluster.
rpc::Status RollingRestart(const RollingRestartOptions& options);

}  // namespace railyard::cluster
