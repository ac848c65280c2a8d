// SPDX-License-Identifier: Apache-2.0
#include "core/node/service_admin.h"

#include <atomic>
#include <utility>

#include "core/base/method_stats.h"
#include "core/base/status.h"
#include "core/node/admin_service.h"
#include "core/node/client_telemetry.h"
#include "core/node/monitoring_listener.h"
#include "core/node/node_metrics.h"
#include "core/node/process_metrics.h"
#include "core/node/runtime_telemetry.h"

namespace railyard::node {

struct ServiceAdmin::Impl {
  explicit Impl(ServiceAdminOptions o) : options(std::move(o)) {}

  admin::Telemetry Snapshot() const;
  std::string RenderMetrics() const;
  std::string NotReadyReason() const;

  const ServiceAdminOptions options;
  // Shared with the server's on_call_done hook, which may outlive this object (a server that
  // goes on serving after its admin service stopped).
  const std::shared_ptr<base::MethodStats> stats = std::make_shared<base::MethodStats>();
  std::vector<std::pair<std::string, const rpc::Client*>> clients;
  rpc::Server* server = nullptr;
  std::unique_ptr<AdminService> admin;
  std::unique_ptr<MonitoringListener> monitoring;
  mutable std::atomic<uint64_t> sequence{0};
  const int64_t started_unix_ms = UnixMillis(std::chrono::system_clock::now());
};

admin::Telemetry ServiceAdmin::Impl::Snapshot() const {
  admin::Telemetry t;
  FillServerSnapshot({sequence.fetch_add(1) + 1, started_unix_ms, options.name, options.version},
                     *server, admin->endpoint(), &t);
  // A service that calls others is a client too, as a replica that follows its updater is.
  if (!clients.empty()) t.set_role(admin::ROLE_BOTH);
  FillServerThroughput(*stats, *server, t.mutable_throughput());
  for (const auto& [name, client] : clients) FillPool(client->Snapshot(), name, "", t.add_pools());
  return t;
}

std::string ServiceAdmin::Impl::RenderMetrics() const {
  NodeMetricsInput input;
  input.telemetry = Snapshot();
  input.methods = stats->AllTotals();
  input.process = ReadProcessFigures();
  return RenderNodeMetrics(input);  // No storage, replication or disk: their families are left out.
}

std::string ServiceAdmin::Impl::NotReadyReason() const {
  switch (server->state()) {
    case rpc::ServerState::kServing:
      return {};
    case rpc::ServerState::kStarting:
      return "starting";
    case rpc::ServerState::kLameDuck:
      return "lame duck: drained, or draining before it stops";
    default:
      return "stopped";
  }
}

ServiceAdmin::ServiceAdmin(ServiceAdminOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

ServiceAdmin::~ServiceAdmin() { Stop(); }

void ServiceAdmin::Instrument(rpc::ServerOptions* options) {
  auto earlier = std::move(options->on_call_done);
  options->on_call_done = [stats = impl_->stats, earlier = std::move(earlier)](
                              std::string_view method, std::chrono::nanoseconds elapsed,
                              const rpc::Status& status) {
    if (earlier) earlier(method, elapsed, status);
    // One definition of a failure (docs/figures.md): NOT_FOUND and BEHIND are answers.
    stats->Record(std::string(method), elapsed, base::IsFailure(status.code()), status.code());
  };
}

rpc::Status ServiceAdmin::WatchClient(std::string name, const rpc::Client* client) {
  if (impl_->admin) {
    return {rpc::Code::kFailedPrecondition, "WatchClient after ServiceAdmin::Start: watch first"};
  }
  impl_->clients.emplace_back(std::move(name), client);
  return rpc::Status::Ok();
}

rpc::Status ServiceAdmin::Start(rpc::Server* server) {
  if (impl_->admin) return {rpc::Code::kFailedPrecondition, "ServiceAdmin::Start called twice"};
  if (impl_->options.name.empty()) {
    return {rpc::Code::kInvalidArgument, "ServiceAdminOptions::name is empty: name the service"};
  }
  impl_->server = server;
  const ServiceAdminOptions& o = impl_->options;
  AdminOptions admin_options;
  admin_options.host = o.host;
  admin_options.port = o.port;
  admin_options.name = o.name;
  admin_options.viewer_tokens = o.viewer_tokens;
  admin_options.operator_tokens = o.operator_tokens;
  admin_options.tls = o.tls;
  AdminCommands commands;
  commands.drain = [server] {
    server->EnterLameDuck();
    return rpc::Status::Ok();
  };
  commands.undrain = [server] {
    server->LeaveLameDuck();
    return rpc::Status::Ok();
  };
  Impl* impl = impl_.get();
  impl_->admin = std::make_unique<AdminService>(
      std::move(admin_options), [impl] { return impl->Snapshot(); }, std::move(commands));
  if (rpc::Status s = impl_->admin->Start(); !s.ok()) {
    impl_->admin.reset();
    return s;
  }
  if (o.metrics) {
    MonitoringOptions monitoring;
    monitoring.host = o.metrics->host;
    monitoring.port = o.metrics->port;
    monitoring.name = o.name;
    monitoring.tls = o.metrics->tls;
    monitoring.tokens = o.metrics->tokens;
    impl_->monitoring = std::make_unique<MonitoringListener>(
        std::move(monitoring), MonitoringSource{[impl] { return impl->RenderMetrics(); },
                                                [impl] { return impl->NotReadyReason(); }});
    if (rpc::Status s = impl_->monitoring->Start(); !s.ok()) {
      impl_->monitoring.reset();
      impl_->admin->Stop();
      impl_->admin.reset();  // Nothing listens: Start may be tried again.
      return s;
    }
  }
  return rpc::Status::Ok();
}

void ServiceAdmin::Stop() {
  if (impl_->monitoring) impl_->monitoring->Stop();
  if (impl_->admin) impl_->admin->Stop();
}

std::optional<rpc::Endpoint> ServiceAdmin::endpoint() const {
  if (!impl_->admin) return std::nullopt;
  return impl_->admin->endpoint();
}

std::optional<rpc::Endpoint> ServiceAdmin::metrics_endpoint() const {
  if (!impl_->monitoring) return std::nullopt;
  return impl_->monitoring->endpoint();
}

void ServiceAdmin::ReplaceTokens(std::vector<std::string> viewer_tokens,
                                 std::vector<std::string> operator_tokens) {
  if (impl_->admin)
    impl_->admin->ReplaceTokens(std::move(viewer_tokens), std::move(operator_tokens));
}

void ServiceAdmin::ReplaceMetricsTokens(std::vector<std::string> tokens) {
  if (impl_->monitoring) impl_->monitoring->ReplaceTokens(std::move(tokens));
}

rpc::Status ServiceAdmin::ReloadTls() {
  if (impl_->admin && impl_->options.tls) {
    if (rpc::Status s = impl_->admin->ReloadTls(); !s.ok()) return s;
  }
  if (impl_->monitoring && impl_->options.metrics->tls) return impl_->monitoring->ReloadTls();
  return rpc::Status::Ok();
}

}  // namespace railyard::node
