// SPDX-License-Identifier: Apache-2.0
#include "core/node/admin_service.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <string_view>

#include "core/cluster/admin_methods.h"
#include "core/node/log_fields.h"
#include "core/rpc/endpoint.h"

namespace railyard::node {

namespace {

rpc::ServerOptions ServerOptionsFor(const AdminOptions& options) {
  rpc::ServerOptions server;
  server.host = options.host;
  server.port = options.port;
  server.name = options.name + "-admin";
  server.io_threads = 1;
  server.worker_threads = 2;
  server.tls = options.tls;
  return server;
}

}  // namespace

bool IsSnapshotName(std::string_view name) {
  if (name.empty() || name.size() > 64 || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == '-';
  });
}

// admin.proto's typed methods, each handed to Handle with its Boxcar name (one check of the token
// and role for all of them).
class AdminService::TypedMethods final : public admin::AdminService::Service {
 public:
  explicit TypedMethods(AdminService& owner) : owner_(owner) {}
  rpc::Status Telemetry(const rpc::CallContext& call, const admin::AdminRequest& request,
                        admin::AdminResponse* response) override {
    return owner_.Handle(std::string(admin::AdminService::kTelemetryMethod), call, request,
                         response);
  }
  rpc::Status History(const rpc::CallContext& call, const admin::AdminRequest& request,
                      admin::AdminResponse* response) override {
    return owner_.Handle(std::string(admin::AdminService::kHistoryMethod), call, request, response);
  }
  rpc::Status Drain(const rpc::CallContext& call, const admin::AdminRequest& request,
                    admin::AdminResponse* response) override {
    return owner_.Handle(std::string(admin::AdminService::kDrainMethod), call, request, response);
  }
  rpc::Status Undrain(const rpc::CallContext& call, const admin::AdminRequest& request,
                      admin::AdminResponse* response) override {
    return owner_.Handle(std::string(admin::AdminService::kUndrainMethod), call, request, response);
  }
  rpc::Status Compact(const rpc::CallContext& call, const admin::AdminRequest& request,
                      admin::AdminResponse* response) override {
    return owner_.Handle(std::string(admin::AdminService::kCompactMethod), call, request, response);
  }
  rpc::Status Flush(const rpc::CallContext& call, const admin::AdminRequest& request,
                    admin::AdminResponse* response) override {
    return owner_.Handle(std::string(admin::AdminService::kFlushMethod), call, request, response);
  }
  rpc::Status Locate(const rpc::CallContext& call, const admin::AdminRequest& request,
                     admin::AdminResponse* response) override {
    return owner_.Handle(std::string(admin::AdminService::kLocateMethod), call, request, response);
  }
  rpc::Status Snapshot(const rpc::CallContext& call, const admin::AdminRequest& request,
                       admin::AdminResponse* response) override {
    return owner_.Handle(std::string(admin::AdminService::kSnapshotMethod), call, request,
                         response);
  }

 private:
  AdminService& owner_;
};

AdminService::AdminService(AdminOptions options, std::function<admin::Telemetry()> telemetry,
                           AdminCommands commands)
    : options_(std::move(options)),
      auth_(options_.viewer_tokens, options_.operator_tokens),
      throttle_(options_.throttle),
      telemetry_(std::move(telemetry)),
      commands_(std::move(commands)),
      server_(ServerOptionsFor(options_)) {
  admin::AdminService::Register(server_, std::make_shared<TypedMethods>(*this));
}

AdminService::~AdminService() { Stop(); }

rpc::Status AdminService::Start() {
  rpc::Status s = server_.Start();
  if (!s.ok()) return s;
  if (options_.flight && options_.flight->enabled && !flight_) {
    if (base::Status opened = FlightRecorder::Open(*options_.flight, &flight_); !opened.ok()) {
      // History helps; it is no reason not to serve.
      spdlog::warn("{}: no flight recorder: {}", options_.name, opened.ToString());
    } else {
      flight_thread_ = std::thread([this] { SampleFlight(); });
    }
  }
  spdlog::info("admin service of {} on {} ({}, {}){}", options_.name, endpoint().ToString(),
               rpc::IsLoopbackHost(options_.host) ? "loopback only" : "reachable from other hosts",
               rpc::DescribeServerTls(options_.tls),
               auth_.configured() ? "" : "; no tokens configured: telemetry only, no commands");
  return s;
}

void AdminService::Stop() {
  StopRecording();
  server_.Stop();
}

void AdminService::StopRecording() {
  {
    base::MutexLock lock(flight_mu_);
    flight_stop_ = true;
  }
  flight_cv_.NotifyAll();
  if (flight_thread_.joinable()) flight_thread_.join();
}

void AdminService::SampleFlight() {
  const auto interval = options_.flight->interval;
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    {
      base::MutexLock lock(flight_mu_);
      if (flight_stop_) return;
    }
    flight_->Record(TelemetryWithCommands());
    // A stall (a stopped process) brings no burst of snapshots after it.
    next = std::max(next + interval, std::chrono::steady_clock::now());
    base::MutexLock lock(flight_mu_);
    while (!flight_stop_ && flight_cv_.WaitUntil(flight_mu_, next)) {
    }
  }
}

rpc::Status AdminService::Handle(const std::string& method, const rpc::CallContext& call,
                                 const admin::AdminRequest& request,
                                 admin::AdminResponse* response) {
  const std::string who =
      std::string(call.client_name.empty() ? "unnamed client" : call.client_name) + " at " +
      std::string(call.peer);
  AdminRole role = AdminRole::kNone;
  if (rpc::Status refused = Authorize(method, call.peer, request.token(), who, &role);
      !refused.ok()) {
    return refused;
  }
  if (method == admin::AdminService::kTelemetryMethod) {
    *response->mutable_telemetry() = TelemetryWithCommands();
    return rpc::Status::Ok();
  }
  if (method == admin::AdminService::kHistoryMethod) {
    if (!flight_) {
      return {rpc::Code::kFailedPrecondition, options_.name + " keeps no flight recorder"};
    }
    *response->mutable_history() =
        flight_->Read(request.from_unix_ms(), request.to_unix_ms(), request.max_bytes());
    return rpc::Status::Ok();
  }
  if (method == admin::AdminService::kLocateMethod) {
    if (!commands_.locate) {
      return {rpc::Code::kFailedPrecondition,
              options_.name + " " + cluster::admin_methods::kNoDocumentStore};
    }
    admin::DocLocation* location = response->mutable_location();
    if (rpc::Status s = commands_.locate(request.doc_id(), location); !s.ok()) return s;
    location->set_id(request.doc_id());
    return rpc::Status::Ok();
  }
  if (method == admin::AdminService::kSnapshotMethod && !commands_.snapshot) {
    return {rpc::Code::kFailedPrecondition,  // Whoever asks: there is nothing to copy.
            options_.name + " " + cluster::admin_methods::kNoDocumentStore};
  }
  const rpc::Status result =
      role == AdminRole::kOperator
          ? RunCommand(method, request, response)
          : rpc::Status{rpc::Code::kFailedPrecondition, method + " needs an operator token"};
  RecordCommand(method, request, who, role, result);
  if (!result.ok()) return result;
  response->set_message(method + " done on " + options_.name);
  *response->mutable_telemetry() = TelemetryWithCommands();
  return rpc::Status::Ok();
}

rpc::Status AdminService::Authorize(const std::string& method, std::string_view peer,
                                    const std::string& token, const std::string& who,
                                    AdminRole* role) {
  const AuthThrottle::Clock::time_point now = AuthThrottle::Clock::now();
  if (const std::chrono::milliseconds wait = throttle_.LockedFor(peer, now); wait.count() > 0) {
    // The token is not even looked at: guessing costs time whatever the guess.
    return {rpc::Code::kUnauthenticated, std::string(cluster::admin_methods::kLockedOutReason) +
                                             "; try again in " + std::to_string(wait.count()) +
                                             " ms"};
  }
  *role = auth_.RoleOf(token);
  if (!auth_.configured()) {
    // An unprotected service shows telemetry to anyone, whatever token the caller holds: a
    // console that sends one token to every node must not be refused (or locked out) by it.
    *role = AdminRole::kViewer;
    return rpc::Status::Ok();
  }
  if (*role != AdminRole::kNone) {
    if (!token.empty()) throttle_.RecordSuccess(peer);
    return rpc::Status::Ok();
  }
  spdlog::warn("admin: refused {} from {}: {} token", method, who,
               token.empty() ? "no" : "invalid");
  if (!token.empty()) {
    if (const std::chrono::milliseconds wait = throttle_.RecordFailure(peer, now);
        wait.count() > 0) {
      spdlog::warn("admin: {} locked out for {} ms after repeated wrong tokens",
                   AuthThrottle::HostOf(peer), wait.count());
    }
  }
  return {rpc::Code::kUnauthenticated,
          token.empty() ? "this admin service requires a token" : "the admin token is not valid"};
}

rpc::Status AdminService::RunCommand(const std::string& method, const admin::AdminRequest& request,
                                     admin::AdminResponse* response) {
  using Methods = admin::AdminService;
  if (method == Methods::kSnapshotMethod) {  // Handle answered a process without a store.
    // Checked here, for every process that takes snapshots: the name becomes a folder's.
    if (!IsSnapshotName(request.snapshot_name())) {
      return {rpc::Code::kInvalidArgument,
              "'" + request.snapshot_name().substr(0, 80) +
                  "' is not a snapshot name: 1 to 64 letters, digits, '_', '.' or '-', not "
                  "starting with '.'"};
    }
    return commands_.snapshot(request.snapshot_name(), response->mutable_snapshot());
  }
  if (method == Methods::kDrainMethod && commands_.drain) return commands_.drain();
  if (method == Methods::kUndrainMethod && commands_.undrain) return commands_.undrain();
  if (method == Methods::kCompactMethod && commands_.compact) {
    return commands_.compact({request.indexes().begin(), request.indexes().end()});
  }
  if (method == Methods::kFlushMethod && commands_.flush) return commands_.flush();
  return {rpc::Code::kFailedPrecondition, method + " is not supported by this process"};
}

void AdminService::RecordCommand(const std::string& method, const admin::AdminRequest& request,
                                 const std::string& who, AdminRole role,
                                 const rpc::Status& result) {
  std::string detail;
  for (uint64_t index : request.indexes()) {
    detail += (detail.empty() ? " indexes " : ",") + std::to_string(index);
  }
  if (!request.snapshot_name().empty()) {
    detail += IsSnapshotName(request.snapshot_name()) ? " name " + request.snapshot_name()
                                                      : std::string(" name (not a valid one)");
  }
  {
    // The same facts as fields of their own, for journald (app/railyard-node/journal_sink.h).
    const ScopedLogFields fields(
        {{"RAILYARD_AUDIT_ACTION", method},
         {"RAILYARD_AUDIT_PEER", who},
         {"RAILYARD_AUDIT_ROLE", std::string(AdminRoleName(role))},
         {"RAILYARD_AUDIT_DETAIL", detail.empty() ? detail : detail.substr(1)},
         {"RAILYARD_AUDIT_NODE", options_.name},
         {"RAILYARD_AUDIT_RESULT", result.ToString()}});
    spdlog::info("audit: {} by {} ({}){} on {} -> {}", method, who, AdminRoleName(role), detail,
                 options_.name, result.ToString());
  }
  admin::CommandEvent event;
  event.set_unix_ms(std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count());
  std::string command = method.substr(method.find('.') + 1);
  std::transform(command.begin(), command.end(), command.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  event.set_command(command);
  event.set_detail(detail);
  event.set_by(who);
  event.set_result(result.ToString());
  base::MutexLock lock(recent_mu_);
  recent_.push_back(std::move(event));
  if (recent_.size() > 32) recent_.pop_front();
}

admin::Telemetry AdminService::TelemetryWithCommands() {
  admin::Telemetry telemetry = telemetry_();
  base::MutexLock lock(recent_mu_);
  for (const admin::CommandEvent& event : recent_) *telemetry.add_recent_commands() = event;
  return telemetry;
}

}  // namespace railyard::node
