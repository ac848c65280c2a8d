#include "core/node/demo_cluster.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

namespace railyard::node {

namespace fs = std::filesystem;

DemoCluster::~DemoCluster() { Stop(); }

rpc::Status DemoCluster::Start(const DemoClusterOptions& o) {
  temporary_ = o.data_dir.empty();
  std::error_code ec;
  // Unique per process and per cluster, so two clusters in one process never share files.
  static int counter = 0;
  root_ = temporary_
              ? (fs::temp_directory_path(ec) /
                 ("railyard-demo-" + std::to_string(::getpid()) + "-" + std::to_string(counter++)))
                    .string()
              : o.data_dir;
  std::vector<rpc::Endpoint> services;
  for (size_t i = 0; i < o.nodes; ++i) {
    NodeOptions options;
    options.name = "node" + std::to_string(i);
    options.data_dir = (fs::path(root_) / options.name).string();
    options.io_threads = 1;
    options.worker_threads = 4;
    options.storage.memtable_entries = o.memtable_entries;
    options.storage.bloom_memory_budget = 8 << 20;
    options.admin.viewer_tokens = o.viewer_tokens;
    options.admin.operator_tokens = o.operator_tokens;
    std::unique_ptr<Node> n;
    if (rpc::Status status = Node::Open(options, &n); !status.ok()) {
      Stop();
      return status;
    }
    services.push_back(n->endpoint());
    nodes_.push_back(std::move(n));
  }
  for (size_t i = 0; i < o.clients; ++i) {
    LoadOptions load;
    load.servers = services;
    load.pool_size = o.pool_size;
    load.concurrency = o.concurrency;
    load.read_fraction = o.read_fraction;
    load.keys = o.keys;
    load.distribution = KeyChooser::Distribution::kZipfian;
    load.client_name = "demo-client-" + std::to_string(i);
    load.seed = i + 1;
    clients_.push_back(std::make_unique<LoadGenerator>(load));
    if (rpc::Status status = clients_.back()->Start(); !status.ok()) {
      Stop();
      return status;
    }
  }
  return rpc::Status::Ok();
}

LoadReport DemoCluster::Stop() {
  LoadReport total;
  for (auto& client : clients_) {
    client->Stop();
    const LoadReport report = client->Report();
    total.requests += report.requests;
    total.ok += report.ok;
    total.not_found += report.not_found;
    total.errors += report.errors;
    total.rejections += report.rejections;
    total.retries += report.retries;
  }
  clients_.clear();
  for (auto& n : nodes_) n->Shutdown(std::chrono::milliseconds(1000));
  nodes_.clear();
  if (temporary_ && !root_.empty()) {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  root_.clear();
  return total;
}

std::vector<rpc::Endpoint> DemoCluster::AdminEndpoints() const {
  std::vector<rpc::Endpoint> endpoints;
  for (const auto& n : nodes_) endpoints.push_back(n->admin_endpoint());
  return endpoints;
}

std::string DemoCluster::ClientLabel(uint64_t client_id) const {
  for (size_t i = 0; i < clients_.size(); ++i) {
    if (clients_[i]->client().client_id() == client_id) return "c" + std::to_string(i);
  }
  return "?";  // Someone else's connection, e.g. railyardctl.
}

}  // namespace railyard::node
