// SPDX-License-Identifier: Apache-2.0
#pragma once

// A client process's telemetry and the admin service that serves it: what `railyardctl load
// --admin-listen`, the demos' clients and any embedding service that opts in expose, so a console
// shows their pools and their own calls (rpc::PoolSnapshot::throughput) as client rows. Part of
// railyard_node_admin, which links no storage engine, so the console can run one too.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/node/admin_service.h"
#include "core/rpc/client.h"
#include "railyard/admin.pb.h"

namespace railyard::node {

// `policy` names the policy when the snapshot does not (the snapshot's own name wins).
void FillPool(const rpc::PoolSnapshot& pool, const std::string& client_name,
              const std::string& policy, admin::ClientPool* out);

// One identity for a process whose calls go through several rpc::Clients sharing one client id
// (`railyardctl load` with an updater: a read client and a write client), so a console sees one
// pool and counts nothing twice: capacities, entries (their servers renumbered into one list,
// each address once), counters and rates summed. Latency cannot be summed: p50 is the
// request-weighted mean of the pools' p50s (between them, as the merged median is), p99 and max
// the larger (an upper bound on the merged ones). Policy, its state and the subset are the first
// pool's (the others balance nothing). `pools` must not be empty; one pool comes back as it is.
rpc::PoolSnapshot MergePools(std::vector<rpc::PoolSnapshot> pools);

// One client pool of the process, as its telemetry names it.
struct NamedPool {
  std::string client_name;
  rpc::PoolSnapshot snapshot;
};

// Snapshots the process's pools; called on the admin service's threads, so it must be safe
// there (rpc::Client::Snapshot is).
using PoolSource = std::function<std::vector<NamedPool>()>;
// Adds what else the process reports (e.g. its Throughput); may be empty.
using TelemetryExtra = std::function<void(admin::Telemetry*)>;

// An admin service (not started) answering telemetry of role client, named options.name, with
// the pools `pools` gives and no commands. Tokens as `options` gives them; with none it is open:
// any caller may read it, with or without a token.
std::unique_ptr<AdminService> MakeClientAdminService(AdminOptions options, PoolSource pools,
                                                     TelemetryExtra extra = {});

// Starts one client admin service per client on 127.0.0.1 (OS-chosen ports), each with the
// tokens of `base` and named after its client: how a demo's load clients show in a console. On
// failure, stops those it started and says which failed.
struct ClientEndpoint {
  std::string name;
  const rpc::Client* client = nullptr;  // Must outlive the service.
  // A second client with `client`'s id (a load client's writes to its updater), or null: both are
  // reported as one pool (MergePools), as `railyardctl load` does. Must outlive the service too.
  const rpc::Client* write_client = nullptr;
};
rpc::Status StartClientAdminServices(const AdminOptions& base,
                                     const std::vector<ClientEndpoint>& clients,
                                     std::vector<std::unique_ptr<AdminService>>* services);

}  // namespace railyard::node
