// SPDX-License-Identifier: Apache-2.0
#pragma once

// The admin service of a railyard-node, for a service owner's own Boxcar server, so that the
// console and `railyardctl status` watch it as they watch a node: its slot table, its methods'
// throughput and latency, the pools of the clients it calls other services with, and drain and
// undrain. Optionally the node's monitoring listener too (/metrics, /healthz, /readyz). Tokens,
// TLS and their reloads work as a node's do (docs/guide.md, "Operating safely").
// docs/embedding.md, "Watched by the console", shows it in a program.
//
//   railyard::node::ServiceAdmin admin(admin_options);
//   railyard::rpc::ServerOptions options;
//   admin.Instrument(&options);              // before the server is made: per-method figures
//   railyard::rpc::Server server(options);
//   ... register handlers, server.Start() ...
//   if (Status s = admin.Start(&server); !s.ok()) ...   // the admin listener, on its own port
//   ... serve ...
//   admin.Stop();                            // before `server` goes (see Stop)
//
// Thread safety: Instrument, WatchClient, Start and Stop from one thread, in that order;
// endpoint(), metrics_endpoint(), ReplaceTokens, ReplaceMetricsTokens and ReloadTls from any
// thread once Start() has returned. It logs through spdlog like the node (rpc::SetLogSink covers
// the runtime's own lines).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/rpc/endpoint.h"
#include "core/rpc/server.h"
#include "core/rpc/status.h"
#include "core/rpc/tls.h"

namespace railyard::rpc {
class Client;
}  // namespace railyard::rpc

namespace railyard::node {

struct ServiceMetricsOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0: the OS chooses; read it back with ServiceAdmin::metrics_endpoint().
  // Set: /metrics needs `Authorization: Bearer <one of these>`; /healthz and /readyz stay open.
  std::vector<std::string> tokens;
  std::optional<rpc::TlsServerOptions> tls;  // Unset: plain HTTP.
};

struct ServiceAdminOptions {
  // The service as telemetry, logs and audit lines name it (the console's node name). Required.
  std::string name;
  std::string version;  // The service's own version, shown beside its name; may be empty.
  std::string host = "127.0.0.1";  // Loopback unless the operator says otherwise.
  uint16_t port = 0;               // 0: the OS chooses; read it back with endpoint().
  // Viewers read telemetry; operators also drain and undrain. With neither, telemetry is open to
  // anyone who reaches the port and commands are refused: give tokens before leaving loopback.
  std::vector<std::string> viewer_tokens;
  std::vector<std::string> operator_tokens;
  std::optional<rpc::TlsServerOptions> tls;  // Unset: plain TCP.
  // Set: the monitoring listener, with the service's figures in Prometheus' text format.
  std::optional<ServiceMetricsOptions> metrics;
};

class ServiceAdmin {
 public:
  explicit ServiceAdmin(ServiceAdminOptions options);
  ~ServiceAdmin();  // Stop()s.
  ServiceAdmin(const ServiceAdmin&) = delete;
  ServiceAdmin& operator=(const ServiceAdmin&) = delete;

  // Has the server made with `options` report every answered call to this service's figures
  // (ServerOptions::on_call_done; a hook already set there is still called, first). Once per
  // server: a second call on the same options would count every call twice. Without it,
  // telemetry shows the slot table but no methods.
  void Instrument(rpc::ServerOptions* options);
  // Reports `client`'s pool (its slots on each server, its calls' rates and latency) under
  // `name`: how a console sees whom this service calls. `client` must outlive Stop().
  // FAILED_PRECONDITION once Start() was called (the list is read by the admin's threads).
  rpc::Status WatchClient(std::string name, const rpc::Client* client);

  // Starts the admin listener (and the monitoring listener) watching `server`, before or after
  // server.Start(). Drain puts `server` into lame duck (rpc::Server::EnterLameDuck); undrain
  // takes it out. Errors: INVALID_ARGUMENT without a name; FAILED_PRECONDITION when started
  // already; else why a listener could not start (its address, a TLS file), and then nothing
  // listens and Start may be called again.
  rpc::Status Start(rpc::Server* server);
  // Stops the listeners; telemetry and commands are refused from then on. Idempotent. Call it
  // before `server` or a watched client is destroyed: the destructor stops too, but a
  // ServiceAdmin declared before its server (as Instrument needs) is destroyed after it.
  void Stop();

  // The admin listener's address; unset unless Start() succeeded.
  std::optional<rpc::Endpoint> endpoint() const;
  std::optional<rpc::Endpoint> metrics_endpoint() const;  // Unset without the listener.
  // Reloads: callers checked from now on see the new lists.
  void ReplaceTokens(std::vector<std::string> viewer_tokens,
                     std::vector<std::string> operator_tokens);
  void ReplaceMetricsTokens(std::vector<std::string> tokens);
  // Reads the admin and monitoring listeners' TLS files again for new connections; the first
  // failure (naming the file) is returned and the listener keeps what it had.
  rpc::Status ReloadTls();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace railyard::node
