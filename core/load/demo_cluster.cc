// SPDX-License-Identifier: Apache-2.0
#include "core/load/demo_cluster.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <system_error>
#include <thread>

#include "core/cluster/replication_names.h"
#include "core/load/cluster_folder.h"

namespace railyard::load {

namespace fs = std::filesystem;

namespace {

constexpr const char* kReplicationTokenFile = "replication-token";
// The docservices' writer token: the demo's clients present it, and so must anyone who loads the
// demo (railyardctl load --data-token-file), as on a real cluster.
constexpr const char* kDataWriterTokenFile = "data-writer-token";

}  // namespace

DemoCluster::~DemoCluster() { Stop(); }

rpc::Status DemoCluster::StartNode(size_t index, const DemoClusterOptions& o,
                                   const std::string& binary) {
  const std::string name = "node" + std::to_string(index);
  const fs::path dir = fs::path(root_) / name;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return {rpc::Code::kInternal, "cannot create " + dir.string() + ": " + ec.message()};
  // The tokens go to files only the node's user can read, as docs/guide.md prescribes.
  const fs::path viewer = fs::path(root_) / "viewer-tokens";
  const fs::path operators = fs::path(root_) / "operator-tokens";
  std::string config = "name: " + Quoted(name) + "\ndata_dir: " + Quoted((dir / "data").string()) +
                       "\nlisten: \"127.0.0.1:0\"\nadmin_listen: \"127.0.0.1:0\"\n" +
                       "io_threads: 1\nworker_threads: 4\ngrace_ms: 1000\n" +
                       "storage { memtable_entries: " + std::to_string(o.memtable_entries) +
                       " bloom_budget_bytes: " + std::to_string(8 << 20) + " }\n";
  config += "data_writer_token_file: " + Quoted(DataTokenFile()) + "\n";
  if (!o.viewer_tokens.empty()) config += "viewer_token_file: " + Quoted(viewer.string()) + "\n";
  if (!o.operator_tokens.empty()) {
    config += "operator_token_file: " + Quoted(operators.string()) + "\n";
  }
  const fs::path config_path = dir / "node.textproto";
  if (rpc::Status s = WriteFile(config_path, config, 0600); !s.ok()) return s;
  // The first node is the updater; the rest follow it (started after it, so its address is known).
  const bool updater = index == 0;
  std::vector<std::string> flags = {"--config",
                                    config_path.string(),
                                    "--replication-token-file",
                                    (fs::path(root_) / kReplicationTokenFile).string(),
                                    "--role",
                                    updater ? "updater" : "replica"};
  if (!updater) flags.insert(flags.end(), {"--follow", nodes_.front().service.ToString()});
  std::unique_ptr<NodeProcess> process;
  if (rpc::Status s = NodeProcess::Start(binary, flags, (dir / "node.log").string(),
                                         std::chrono::seconds(10), &process);
      !s.ok()) {
    return {s.code(), name + ": " + s.message()};
  }
  nodes_.push_back({name, updater ? "updater" : "replica", process->service(), process->admin(),
                    process->pid()});
  processes_.push_back(std::move(process));
  flags_.push_back(std::move(flags));
  return rpc::Status::Ok();
}

rpc::Status DemoCluster::RestartNodeAt(std::string_view admin) {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].admin.ToString() == admin) return RestartNode(i);
  }
  return {rpc::Code::kNotFound, std::string(admin) + " is not a node of this demo"};
}

bool DemoCluster::NodeRunning(size_t index) {
  return index < processes_.size() && processes_[index]->Running();
}

rpc::Status DemoCluster::RestartNode(size_t index) {
  if (index >= processes_.size()) {
    return {rpc::Code::kNotFound, "the demo has no node " + std::to_string(index)};
  }
  DemoNode& node = nodes_[index];
  if (processes_[index]->Running()) {
    return {rpc::Code::kFailedPrecondition,
            node.name + " (pid " + std::to_string(node.pid) +
                ") is still running; if it does not answer it may be stopped (kill -CONT " +
                std::to_string(node.pid) + ")"};
  }
  // Its addresses as first chosen by the OS, over the config's port 0.
  std::vector<std::string> flags = flags_[index];
  flags.insert(flags.end(),
               {"--listen", node.service.ToString(), "--admin-listen", node.admin.ToString()});
  const fs::path dir = fs::path(root_) / node.name;
  std::unique_ptr<NodeProcess> process;
  if (rpc::Status s = NodeProcess::Start(binary_, flags, (dir / "node.log").string(),
                                         std::chrono::seconds(10), &process);
      !s.ok()) {
    return {s.code(), node.name + ": " + s.message()};
  }
  node.pid = process->pid();
  processes_[index] = std::move(process);
  return rpc::Status::Ok();
}

rpc::Status DemoCluster::Start(const DemoClusterOptions& o) {
  std::string binary = o.node_binary;
  if (binary.empty()) {
    if (rpc::Status s = FindNodeBinary(&binary); !s.ok()) return s;
  }
  binary_ = binary;
  temporary_ = o.data_dir.empty();
  keep_folder_if_requests_failed_ = o.keep_folder_if_requests_failed;
  std::error_code ec;
  // Unique per process and per cluster, so two clusters in one process never share files.
  static int counter = 0;
  root_ = temporary_
              ? (fs::temp_directory_path(ec) /
                 ("railyard-demo-" + std::to_string(::getpid()) + "-" + std::to_string(counter++)))
                    .string()
              : o.data_dir;
  fs::create_directories(root_, ec);
  rpc::Status s = WriteFile(fs::path(root_) / "viewer-tokens", Lines(o.viewer_tokens), 0600);
  if (s.ok()) s = WriteFile(fs::path(root_) / "operator-tokens", Lines(o.operator_tokens), 0600);
  if (s.ok()) s = WriteFile(fs::path(root_) / kReplicationTokenFile, RandomToken() + "\n", 0600);
  data_token_ = RandomToken();
  if (s.ok()) s = WriteFile(DataTokenFile(), data_token_ + "\n", 0600);
  for (size_t i = 0; s.ok() && i < o.nodes; ++i) s = StartNode(i, o, binary);
  if (s.ok()) s = WriteClusterFile();
  if (!s.ok()) {
    // A temporary folder is kept when a node failed: its log is the evidence the error points to.
    const std::string kept = root_;
    temporary_ = false;
    Stop();
    if (!kept.empty()) {
      s = {s.code(), s.message() + "; its folder is kept for the logs: " + kept};
    }
    return s;
  }
  std::vector<rpc::Endpoint> services;
  for (const DemoNode& n : nodes_) services.push_back(n.service);
  for (size_t i = 0; i < o.clients; ++i) {
    LoadOptions load;
    load.updater = nodes_.front().service;  // Writes to the updater, reads over every node.
    load.servers = services;
    load.pool_size = o.pool_size;
    load.concurrency = o.concurrency;
    load.read_fraction = o.read_fraction;
    load.keys = o.keys;
    load.distribution = KeyChooser::Distribution::kZipfian;
    load.client_name = "demo-client-" + std::to_string(i);
    load.credentials = data_token_;
    load.seed = i + 1;
    load.subset_mode = o.subset_mode;
    load.subset_size = o.subset_size;
    load.client_index = i;
    clients_.push_back(std::make_unique<LoadGenerator>(load));
    if (rpc::Status status = clients_.back()->Start(); !status.ok()) {
      Stop();
      return status;
    }
  }
  return rpc::Status::Ok();
}

LoadResult DemoCluster::Stop() {
  LoadResult total;
  {
    // Side by side: each may wait out its calls' grace (a node that went away).
    std::vector<std::thread> stops;
    for (auto& client : clients_) stops.emplace_back([&client] { client->Stop(); });
    for (std::thread& stop : stops) stop.join();
  }
  for (auto& client : clients_) total.Add(client->Result());
  clients_.clear();
  for (auto& process : processes_) process->Stop(std::chrono::milliseconds(1000));
  processes_.clear();
  flags_.clear();
  nodes_.clear();
  if (temporary_ && !root_.empty()) {
    if (keep_folder_if_requests_failed_ && total.errors + total.rejections > 0) {
      kept_folder_ = root_;
    } else {
      std::error_code ec;
      fs::remove_all(root_, ec);
    }
  }
  root_.clear();
  return total;
}

std::string DemoCluster::DataTokenFile() const {
  return root_.empty() ? std::string() : (fs::path(root_) / kDataWriterTokenFile).string();
}

std::string DemoCluster::ClusterFile() const {
  return root_.empty() ? std::string() : (fs::path(root_) / "cluster.textproto").string();
}

rpc::Status DemoCluster::WriteClusterFile() const {
  std::string text = "# The demo cluster (railyard.config.Cluster): one updater, its replicas.\n";
  text += "name: \"railyard-demo\"\n";
  for (const DemoNode& n : nodes_) {
    text += "node { name: " + Quoted(n.name) + " service: " + Quoted(n.service.ToString()) +
            " admin: " + Quoted(n.admin.ToString()) + " role: " + Quoted(n.role) + " }\n";
  }
  return WriteFile(ClusterFile(), text, 0644);
}

std::vector<rpc::Endpoint> DemoCluster::AdminEndpoints() const {
  std::vector<rpc::Endpoint> endpoints;
  for (const DemoNode& n : nodes_) endpoints.push_back(n.admin);
  return endpoints;
}

std::string DemoCluster::ClientLabel(uint64_t client_id, std::string_view client_name) const {
  for (size_t i = 0; i < clients_.size(); ++i) {
    if (clients_[i]->client().client_id() == client_id) return "c" + std::to_string(i);
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (client_name == cluster::FollowerClientName(nodes_[i].name)) return "n" + std::to_string(i);
  }
  return "?";  // Someone else's connection, e.g. railyardctl.
}

}  // namespace railyard::load
