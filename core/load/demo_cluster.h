// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/balance/subsetting.h"
#include "core/load/load_generator.h"
#include "core/load/node_process.h"
#include "core/rpc/status.h"

namespace railyard::load {

struct DemoClusterOptions {
  size_t nodes = 3;  // The first is the updater, the others its replicas.
  size_t clients = 3;
  size_t concurrency = 6;  // Calls in flight per client.
  size_t pool_size = 8;
  // How each client subsets the nodes it reads from; the clients take indexes 0, 1, 2, ... in
  // turn, so deterministic subsetting spreads them evenly.
  balance::SubsetMode subset_mode = balance::SubsetMode::kNone;
  size_t subset_size = 0;
  double read_fraction = 0.8;
  uint64_t keys = 200000;
  size_t memtable_entries = 20000;  // Small, so flushes and compactions happen while you watch.
  std::string data_dir;             // Empty: a temporary folder, removed by Stop().
  // A temporary folder is kept by Stop() when a request failed (its logs are the evidence):
  // railyardctl demo's choice; the console's demo, where killing nodes is the point, leaves none.
  bool keep_folder_if_requests_failed = false;
  std::string node_binary;  // Empty: FindNodeBinary().
  // Admin tokens of every node; none: telemetry open to anyone, commands refused.
  std::vector<std::string> viewer_tokens;
  std::vector<std::string> operator_tokens;
};

// One node of the demo, as it listens.
struct DemoNode {
  std::string name;
  std::string role;  // "updater" or "replica" (as ClusterMember.role).
  rpc::Endpoint service;
  rpc::Endpoint admin;
  pid_t pid = -1;
};

// A local cluster on loopback for demos and tests: `nodes` railyard-node processes (each with
// its config, tokens, data and log in the cluster's folder, ports chosen by the OS) and
// `clients` load generators in this process driving them. The first node is the updater, started
// first; the others are replicas following its service address, with a replication token made up
// for this cluster (a 0600 file in its folder). The clients write to the updater and balance
// reads over every node. The folder also holds cluster.textproto, naming every node and its role.
// Shared by `railyardctl demo` and `railyard --demo`; running the nodes as processes keeps the
// storage engine out of the console.
//
// Thread safety: Start and Stop from one controlling thread; the clients themselves may be used
// from any thread.
class DemoCluster {
 public:
  DemoCluster() = default;
  ~DemoCluster();  // Stop()s.
  DemoCluster(const DemoCluster&) = delete;
  DemoCluster& operator=(const DemoCluster&) = delete;

  // Starts the nodes, then the load clients. On failure, stops what it started; the error
  // names the node, quotes the end of its log and names the folder, which is kept (even a
  // temporary one) so that the whole log can be read.
  rpc::Status Start(const DemoClusterOptions& options);
  // Stops the clients (bounded), drains and stops the nodes (SIGTERM, SIGKILL after a second)
  // and removes a temporary data folder, unless a request failed and the options asked to keep it
  // then (kept_folder()). Returns the clients' combined result. Idempotent.
  LoadResult Stop();
  // After Stop: the temporary folder it kept because requests failed; empty otherwise.
  const std::string& kept_folder() const { return kept_folder_; }

  // Reaps node `index`'s process if it has ended (killed, crashed), so that it is not left a
  // zombie, and says whether it still runs. Call it now and then (the console does each second).
  bool NodeRunning(size_t index);
  // Starts node `index` again once its process has ended, on the same service and admin
  // addresses, with the same data, role and tokens, so that watchers and clients find it where it
  // was. FAILED_PRECONDITION while it still runs (a stopped process too: SIGCONT it), NOT_FOUND
  // for an index out of range; the start's own error otherwise. nodes()[index].pid changes.
  rpc::Status RestartNode(size_t index);
  // RestartNode of the node whose admin address (host:port) is `admin`; NOT_FOUND if none is.
  rpc::Status RestartNodeAt(std::string_view admin);

  const std::vector<DemoNode>& nodes() const { return nodes_; }
  const std::vector<std::unique_ptr<LoadGenerator>>& clients() const { return clients_; }
  std::vector<rpc::Endpoint> AdminEndpoints() const;
  // "c<i>" for a load client of this cluster, "n<i>" for node i's replica following the updater
  // (known by its client name), "?" for anyone else's connection.
  std::string ClientLabel(uint64_t client_id, std::string_view client_name = {}) const;
  // The folder holding the nodes' configs, data and logs.
  const std::string& root() const { return root_; }
  // The cluster file in root() (for railyardctl --cluster and the console).
  std::string ClusterFile() const;
  // The docservices' writer token (a 0600 file in root()), which every node requires in a
  // client's hello and the demo's clients present: for railyardctl load --data-token-file.
  std::string DataTokenFile() const;
  const std::string& data_token() const { return data_token_; }

 private:
  rpc::Status StartNode(size_t index, const DemoClusterOptions& options, const std::string& binary);
  rpc::Status WriteClusterFile() const;

  std::string root_;
  std::string data_token_;
  bool temporary_ = false;
  bool keep_folder_if_requests_failed_ = false;
  std::string kept_folder_;
  std::string binary_;                           // railyard-node, as found by Start.
  std::vector<std::vector<std::string>> flags_;  // Each node's command line, as first started.
  std::vector<std::unique_ptr<NodeProcess>> processes_;
  std::vector<DemoNode> nodes_;
  std::vector<std::unique_ptr<LoadGenerator>> clients_;
};

}  // namespace railyard::load
