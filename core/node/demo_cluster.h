#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/node/load_generator.h"
#include "core/node/node.h"
#include "core/rpc/status.h"

namespace railyard::node {

struct DemoClusterOptions {
  size_t nodes = 3;
  size_t clients = 3;
  size_t concurrency = 6;  // Calls in flight per client.
  size_t pool_size = 8;
  double read_fraction = 0.8;
  uint64_t keys = 200000;
  size_t memtable_entries = 20000;  // Small, so flushes and compactions happen while you watch.
  std::string data_dir;             // Empty: a temporary folder, removed by Stop().
  // Admin tokens of every node; none: telemetry open to anyone, commands refused.
  std::vector<std::string> viewer_tokens;
  std::vector<std::string> operator_tokens;
};

// A local cluster on loopback for demos and tests: `nodes` docstore nodes (each a full
// railyard-node with docservice and admin service) and `clients` load generators driving them.
// Shared by `railyardctl demo` and `railyard --demo`.
//
// Thread safety: Start and Stop from one controlling thread; the nodes and clients themselves
// may be used from any thread.
class DemoCluster {
 public:
  DemoCluster() = default;
  ~DemoCluster();  // Stop()s.
  DemoCluster(const DemoCluster&) = delete;
  DemoCluster& operator=(const DemoCluster&) = delete;

  // Opens the nodes, then starts the load clients. On failure, stops what it started.
  rpc::Status Start(const DemoClusterOptions& options);
  // Stops the clients (bounded), shuts the nodes down and removes a temporary data folder.
  // Returns the clients' combined report. Idempotent.
  LoadReport Stop();

  const std::vector<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  const std::vector<std::unique_ptr<LoadGenerator>>& clients() const { return clients_; }
  std::vector<rpc::Endpoint> AdminEndpoints() const;
  // "c<i>" for a load client of this cluster, "?" for anyone else's connection.
  std::string ClientLabel(uint64_t client_id) const;

 private:
  std::string root_;
  bool temporary_ = false;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<std::unique_ptr<LoadGenerator>> clients_;
};

}  // namespace railyard::node
