// SPDX-License-Identifier: Apache-2.0
#include "core/node/monitoring_listener.h"

#include <spdlog/spdlog.h>

#include "core/http/prometheus_text.h"
#include "core/node/auth.h"

namespace railyard::node {

namespace {

http::HttpResponse Text(int status, std::string body) {
  http::HttpResponse r;
  r.status = status;
  r.body = std::move(body) + "\n";
  return r;
}

}  // namespace

MonitoringListener::MonitoringListener(MonitoringOptions options, MonitoringSource source)
    : options_(std::move(options)), source_(std::move(source)), tokens_(options_.tokens) {
  http::HttpServerOptions http;
  http.host = options_.host;
  http.port = options_.port;
  http.name = options_.name + "-metrics";
  http.tls = options_.tls;
  server_ = std::make_unique<http::HttpServer>(
      std::move(http), [this](const http::HttpRequest& request) { return Handle(request); });
}

rpc::Status MonitoringListener::Start() {
  if (rpc::Status s = server_->Start(); !s.ok()) return s;
  bool protected_metrics;
  {
    base::MutexLock lock(mu_);
    protected_metrics = !tokens_.empty();
  }
  spdlog::info("metrics of {} on http{}://{}/metrics ({}){}", options_.name,
               options_.tls ? "s" : "", endpoint().ToString(), rpc::DescribeServerTls(options_.tls),
               protected_metrics ? "; bearer token required" : "; no token required");
  return rpc::Status::Ok();
}

void MonitoringListener::Stop() { server_->Stop(); }

void MonitoringListener::ReplaceTokens(std::vector<std::string> tokens) {
  base::MutexLock lock(mu_);
  tokens_ = std::move(tokens);
}

bool MonitoringListener::Authorized(const std::string& authorization) {
  base::MutexLock lock(mu_);
  if (tokens_.empty()) return true;
  constexpr std::string_view kScheme = "Bearer ";
  if (authorization.size() <= kScheme.size() ||
      authorization.compare(0, kScheme.size(), kScheme) != 0) {
    return false;
  }
  const std::string_view token = std::string_view(authorization).substr(kScheme.size());
  bool match = false;
  for (const std::string& t : tokens_) match |= ConstantTimeEquals(token, t);
  return match;
}

http::HttpResponse MonitoringListener::Handle(const http::HttpRequest& request) {
  if (request.path == "/healthz") return Text(200, "ok");
  if (request.path == "/readyz") {
    const std::string reason = source_.not_ready_reason();
    return reason.empty() ? Text(200, "ready") : Text(503, "not ready: " + reason);
  }
  if (request.path == "/metrics") {
    if (!Authorized(request.authorization)) {
      spdlog::warn("metrics: refused {}: {} bearer token", request.peer,
                   request.authorization.empty() ? "no" : "invalid");
      http::HttpResponse r = Text(401, "unauthorized: /metrics needs Authorization: Bearer TOKEN");
      r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"railyard metrics\"");
      return r;
    }
    http::HttpResponse r;
    r.content_type = http::kPrometheusContentType;
    r.body = source_.metrics();
    return r;
  }
  return Text(404, "not found: try /metrics, /healthz or /readyz");
}

}  // namespace railyard::node
