// SPDX-License-Identifier: Apache-2.0
#include "core/node/node.h"

#include <spdlog/spdlog.h>
#include <algorithm>
#include <filesystem>

#include "core/base/usable_cores.h"
#include "core/cluster/replication_names.h"
#include "core/node/doc_service.h"
#include "core/node/node_metrics.h"
#include "core/node/process_metrics.h"
#include "core/node/telemetry.h"
#include "core/rpc/endpoint.h"

#ifndef RAILYARD_VERSION
#define RAILYARD_VERSION "dev"
#endif

namespace railyard::node {

namespace {
rpc::Status NotReady() {
  return {rpc::Code::kFailedPrecondition, "the node is starting (opening its store)"};
}
}  // namespace

Node::Node(NodeOptions options) : options_(std::move(options)) {}

Node::~Node() { Shutdown(std::chrono::milliseconds(0)); }

size_t DefaultNodeIoThreads() { return std::max<size_t>(1, base::UsableCores() / 2); }

rpc::Status Node::Open(NodeOptions options, std::unique_ptr<Node>* out) {
  std::unique_ptr<Node> node(new Node(std::move(options)));
  const NodeOptions& o = node->options_;
  if (o.data_dir.empty()) return {rpc::Code::kInvalidArgument, "no data directory given"};
  if (o.replication.replica && o.replication.follow.empty()) {
    return {rpc::Code::kInvalidArgument, "a replica needs the updater to follow (--follow)"};
  }
  // Listen first, in the starting state: clients connect (and take their slots) while the store
  // replays its WAL and loads its indexes and Bloom pages, then hear "serving" at once.
  rpc::ServerOptions server_options;
  server_options.host = o.host;
  server_options.port = o.port;
  server_options.name = o.name;
  server_options.io_threads = o.io_threads != 0 ? o.io_threads : DefaultNodeIoThreads();
  server_options.worker_threads = o.worker_threads;
  server_options.tls = o.tls;
  server_options.serve_on_start = false;
  DataAccessOptions access_options = o.data_access;
  access_options.certificates_authenticate =
      o.tls && !o.tls->client_ca_file.empty() && o.tls->require_client_cert;
  auto access = std::make_shared<DataAccess>(std::move(access_options));
  node->data_access_ = access;
  if (access->configured()) {
    server_options.authenticate = [access](const rpc::HelloInfo& hello) {
      return access->PrincipalOf(hello);
    };
    // A refused call is counted as its method's error (UNAUTHENTICATED), as answers are; one to
    // a method the docservice does not have is left to the server's count, so that strangers'
    // made-up names cannot grow the figures without bound.
    server_options.authorize = [access, stats = &node->stats_](const rpc::CallContext& call) {
      rpc::Status allowed = access->Authorize(call);
      if (!allowed.ok() && DataAccess::IsDocServiceMethod(call.method)) {
        stats->Record(std::string(call.method), std::chrono::nanoseconds(0), true, allowed.code());
      }
      return allowed;
    };
  } else if (!rpc::IsLoopbackHost(o.host)) {
    spdlog::warn(
        "{}: the docservice on {} takes reads and writes from anyone who reaches it: give it "
        "reader and writer tokens (data_reader_token_file, data_writer_token_file) or "
        "require client certificates (tls.client_ca_file)",
        o.name, o.host);
  }
  node->server_ = std::make_unique<rpc::Server>(server_options);

  AdminOptions admin_options = o.admin;
  admin_options.name = o.name;
  if (o.flight.enabled) {
    admin_options.flight = o.flight;
    if (admin_options.flight->dir.empty()) {
      admin_options.flight->dir = (std::filesystem::path(o.data_dir) / "flight").string();
    }
  }
  Node* raw = node.get();
  AdminCommands commands;
  commands.drain = [raw] {
    raw->server_->EnterLameDuck();
    return rpc::Status::Ok();
  };
  commands.undrain = [raw] {
    raw->server_->LeaveLameDuck();
    return rpc::Status::Ok();
  };
  commands.compact = [raw](const std::vector<uint64_t>& indexes) {
    if (!raw->ready_.load()) return NotReady();
    return raw->Compact(indexes);
  };
  commands.flush = [raw] {
    if (!raw->ready_.load()) return NotReady();
    return ToRpcStatus(raw->store_->Flush());
  };
  commands.locate = [raw](uint64_t id, admin::DocLocation* location) {
    if (!raw->ready_.load()) return NotReady();
    storage::DocLocation where;
    if (rpc::Status s = ToRpcStatus(raw->store_->Locate(id, &where)); !s.ok()) return s;
    FillDocLocation(where, location);
    location->set_role(raw->options_.replication.replica ? admin::DOCSTORE_REPLICA
                                                         : admin::DOCSTORE_UPDATER);
    // After the lookup: a store that holds the entry has applied at least its position.
    location->set_applied_position(raw->store_->AppliedPosition());
    return rpc::Status::Ok();
  };
  commands.snapshot = [raw](const std::string& name, admin::SnapshotTaken* taken) {
    if (!raw->ready_.load()) return NotReady();
    // Inside the data folder: on the store's filesystem (hard links), and nowhere else.
    std::error_code ec;
    const std::filesystem::path folder =
        std::filesystem::absolute(std::filesystem::path(raw->options_.data_dir) / "snapshots", ec);
    std::filesystem::create_directories(folder, ec);
    if (ec) {
      return rpc::Status{rpc::Code::kInternal, "creating " + folder.string() + ": " + ec.message()};
    }
    const std::string path = (folder / name).string();
    storage::DocStore::SnapshotInfo info;
    if (rpc::Status s = ToRpcStatus(raw->store_->Snapshot(path, &info)); !s.ok()) return s;
    taken->set_path(path);
    taken->set_position(info.position);
    taken->set_files_linked(info.files_linked);
    taken->set_bytes_linked(info.bytes_linked);
    taken->set_files_copied(info.files_copied);
    taken->set_bytes_copied(info.bytes_copied);
    taken->set_role(raw->options_.replication.replica ? admin::DOCSTORE_REPLICA
                                                      : admin::DOCSTORE_UPDATER);
    spdlog::info("{}: snapshot {} at queue position {}: {} files linked, {} copied ({} bytes)",
                 raw->options_.name, path, info.position, info.files_linked, info.files_copied,
                 info.bytes_copied);
    return rpc::Status::Ok();
  };
  node->admin_ = std::make_unique<AdminService>(
      admin_options, [raw] { return raw->Snapshot(); }, std::move(commands));
  if (rpc::Status s = node->server_->Start(); !s.ok()) return s;
  if (rpc::Status s = node->admin_->Start(); !s.ok()) return s;
  if (o.monitoring) {
    MonitoringOptions monitoring = *o.monitoring;
    monitoring.name = o.name;
    node->monitoring_ = std::make_unique<MonitoringListener>(
        std::move(monitoring), MonitoringSource{[raw] { return raw->RenderMetrics(); },
                                                [raw] { return raw->NotReadyReason(); }});
    if (rpc::Status s = node->monitoring_->Start(); !s.ok()) return s;
  }
  if (o.on_starting) o.on_starting(*node);

  storage::Options storage_options = o.storage;
  storage_options.replica = o.replication.replica;
  if (!storage_options.logger) {
    // The store's warnings and its recovery line belong in the node's log, not bare on stderr.
    storage_options.logger = [name = o.name](storage::LogLevel level, std::string_view message) {
      const spdlog::level::level_enum spd = level == storage::LogLevel::kError ? spdlog::level::err
                                            : level == storage::LogLevel::kWarning
                                                ? spdlog::level::warn
                                                : spdlog::level::info;
      spdlog::log(spd, "{}: {}", name, message);
    };
  }
  if (storage::Status s = storage::DocStore::Open(storage_options, o.data_dir, &node->store_);
      !s.ok()) {
    return {rpc::Code::kInternal, "opening the store in " + o.data_dir + ": " + s.ToString()};
  }
  // What an acknowledged write survives depends on it, so operators see it in every log.
  spdlog::info("{}: store in {} opened; sync {}{}", o.name, o.data_dir,
               storage::SyncPolicyName(o.storage.sync),
               o.storage.sync == storage::SyncPolicy::kInterval
                   ? " every " + std::to_string(o.storage.sync_interval.count()) + " ms"
                   : std::string());
  DocServiceOptions doc_options;
  if (o.replication.replica) doc_options.replica_of = o.replication.follow;
  doc_options.dispatch = o.doc_dispatch;
  RegisterDocService(*node->server_, *node->store_, node->stats_, doc_options);
  if (!o.replication.replica) {
    ReplicationSourceOptions source;
    source.tokens = o.replication.tokens;
    source.client_certificates_authenticate =
        o.tls && !o.tls->client_ca_file.empty() && o.tls->require_client_cert;
    source.corrupt_first_sends = o.replication.corrupt_first_sends;
    node->source_ = std::make_unique<ReplicationSource>(source, *node->store_, o.name);
    node->source_->Register(*node->server_, node->stats_);
  }
  node->ready_ = true;  // The store is open: its figures and commands are available.
  if (rpc::Status s = node->StartReplication(); !s.ok()) return s;
  // A replica serves once its follower has caught up (StartReplication).
  if (!o.replication.replica) node->server_->MarkServing();
  *out = std::move(node);
  return rpc::Status::Ok();
}

rpc::Status Node::StartReplication() {
  const ReplicationOptions& r = options_.replication;
  if (!r.replica) return rpc::Status::Ok();
  FollowerOptions follower;
  follower.updater = r.follow;
  follower.token = r.tokens.empty() ? std::string() : r.tokens.front();
  follower.tls = r.follow_tls;
  follower.name = options_.name;
  follower.address = server_->endpoint().ToString();
  follower.ready_anyway_after = r.serve_unreachable_after;
  follower.on_ready = [this](bool caught_up) {
    if (caught_up) {
      spdlog::info("{}: caught up with {}; serving", options_.name, options_.replication.follow);
    } else {
      spdlog::warn(
          "{}: not caught up with {} (unreachable for {} ms, or replication stopped); serving "
          "what this replica has (reads that carry a newer position are answered BEHIND)",
          options_.name, options_.replication.follow,
          options_.replication.serve_unreachable_after.count());
    }
    server_->MarkServing();
  };
  follower_ = std::make_unique<ReplicaFollower>(std::move(follower), *store_);
  return follower_->Start();
}

rpc::Status Node::Compact(const std::vector<uint64_t>& indexes) {
  return ToRpcStatus(indexes.empty() ? store_->CompactAll() : store_->CompactIndexes(indexes));
}

admin::Telemetry Node::Snapshot() {
  admin::Telemetry t;
  const std::vector<rpc::SlotInfo> slots = FillServerSnapshot(
      {sequence_.fetch_add(1) + 1, started_unix_ms_, options_.name, RAILYARD_VERSION}, *server_,
      admin_->endpoint(), &t);
  if (const std::optional<DiskFigures> disk = ReadDiskFigures(options_.data_dir)) {
    *t.mutable_disk() = disk->ToProto();
  }
  if (!ready_.load()) return t;  // Starting: the store and replication are not there yet.
  FillStorage(store_->GetStats(), t.mutable_storage());
  FillServerThroughput(stats_, *server_, t.mutable_throughput());
  if (source_) source_->FillTelemetry(slots, t.mutable_replication());
  if (follower_) {
    follower_->FillTelemetry(t.mutable_replication());
    FillPool(follower_->pool(), cluster::FollowerClientName(options_.name), "", t.add_pools());
    t.set_role(admin::ROLE_BOTH);
  }
  return t;
}

std::optional<rpc::Endpoint> Node::monitoring_endpoint() const {
  if (!monitoring_) return std::nullopt;
  return monitoring_->endpoint();
}

std::string Node::RenderMetrics() {
  NodeMetricsInput input;
  input.telemetry = Snapshot();
  input.methods = stats_.AllTotals();
  input.process = ReadProcessFigures();
  input.disk = ReadDiskFigures(options_.data_dir);
  return RenderNodeMetrics(input);
}

std::string Node::NotReadyReason() {
  switch (server_->state()) {
    case rpc::ServerState::kServing:
      return {};
    case rpc::ServerState::kStarting:
      if (!ready_.load()) return "starting: opening the store";
      return "starting: catching up with the updater " + options_.replication.follow;
    case rpc::ServerState::kLameDuck:
      return "lame duck: draining before it stops";
    default:
      return "stopping";
  }
}

void Node::Shutdown(std::chrono::milliseconds grace) {
  if (shut_down_.exchange(true) || !server_) return;
  // Its snapshots read the store, which closes below.
  if (admin_) admin_->StopRecording();
  if (follower_) follower_->Stop();
  server_->Shutdown(grace);
  // Its /metrics reads the store: stopped before the store closes. /readyz said 503 meanwhile.
  if (monitoring_) monitoring_->Stop();
  if (store_) {  // Null when Open failed before the store opened.
    if (storage::Status s = store_->Flush(); !s.ok()) {
      spdlog::error("{}: flush on shutdown failed: {}", options_.name, s.ToString());
    }
    if (storage::Status s = store_->Close(); !s.ok()) {
      spdlog::error("{}: closing the store failed: {}", options_.name, s.ToString());
    }
  }
  if (admin_) admin_->Stop();
}

std::vector<std::pair<std::string, rpc::Status>> Node::ReloadTls() {
  std::vector<std::pair<std::string, rpc::Status>> results;
  if (options_.tls) results.emplace_back("service", server_->ReloadTls());
  if (options_.admin.tls) results.emplace_back("admin", admin_->ReloadTls());
  if (monitoring_ && options_.monitoring->tls) {
    results.emplace_back("metrics", monitoring_->ReloadTls());
  }
  return results;
}

void Node::ReplaceAdminTokens(std::vector<std::string> viewer_tokens,
                              std::vector<std::string> operator_tokens) {
  admin_->ReplaceTokens(std::move(viewer_tokens), std::move(operator_tokens));
}

bool Node::ReplaceDataTokens(std::vector<std::string> reader_tokens,
                             std::vector<std::string> writer_tokens) {
  return data_access_->Replace(std::move(reader_tokens), std::move(writer_tokens));
}

void Node::ReplaceMetricsTokens(std::vector<std::string> tokens) {
  if (monitoring_) monitoring_->ReplaceTokens(std::move(tokens));
}

}  // namespace railyard::node
