// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/mutex.h"
#include "core/http/http_server.h"
#include "core/rpc/status.h"
#include "core/rpc/tls.h"

namespace railyard::node {

struct MonitoringOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  std::string name;                          // The node, in logs.
  std::optional<rpc::TlsServerOptions> tls;  // Unset: plain HTTP.
  // Set: /metrics needs `Authorization: Bearer <one of these>`. /healthz and /readyz stay open:
  // they tell only alive and ready, and load balancers' health checks rarely send a token.
  std::vector<std::string> tokens;
};

// What the listener asks the node.
struct MonitoringSource {
  std::function<std::string()> metrics;  // The /metrics body (Prometheus text format 0.0.4).
  // Empty while the node serves; else a one-line reason (starting, lame duck) for /readyz's 503.
  std::function<std::string()> not_ready_reason;
};

// The node's HTTP listener for Prometheus, load balancers and curl:
//   GET /metrics  200 with the exposition (401 without the right bearer token, if tokens are set)
//   GET /healthz  200 "ok" while the process and this listener's loop run
//   GET /readyz   200 "ready" while serving; 503 with the reason while starting or lame duck
// Anything else is 404; see http::HttpServer for 400 and 405.
//
// Thread safety: Start and Stop from one thread; ReplaceTokens and ReloadTls from any thread.
class MonitoringListener {
 public:
  MonitoringListener(MonitoringOptions options, MonitoringSource source);

  rpc::Status Start();
  void Stop();
  rpc::Endpoint endpoint() const { return server_->endpoint(); }
  rpc::Status ReloadTls() { return server_->ReloadTls(); }
  void ReplaceTokens(std::vector<std::string> tokens);

 private:
  http::HttpResponse Handle(const http::HttpRequest& request);
  bool Authorized(const std::string& authorization);

  const MonitoringOptions options_;
  const MonitoringSource source_;
  base::Mutex mu_;
  std::vector<std::string> tokens_ RAILYARD_GUARDED_BY(mu_);
  std::unique_ptr<http::HttpServer> server_;
};

}  // namespace railyard::node
