// SPDX-License-Identifier: Apache-2.0
#pragma once

// A small HTTP/1.1 listener for monitoring: Prometheus scrapes, load-balancer health checks, curl.
// GET (and HEAD) only, one request per connection, bounded request size and time. Not a general
// web server: no bodies, no chunked encoding, no keep-alive.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/rpc/endpoint.h"
#include "core/rpc/status.h"
#include "core/rpc/tls.h"

namespace railyard::http {

struct HttpRequest {
  std::string method;         // "GET" or "HEAD" (others are answered 405 before a handler runs).
  std::string path;           // The target up to '?', e.g. "/metrics".
  std::string query;          // After '?', undecoded; empty if none.
  std::string authorization;  // The Authorization header's value; empty if absent.
  std::string peer;           // host:port of the client.
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // Extra ones, e.g. WWW-Authenticate.
};

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;                         // 0: the OS chooses.
  std::string name;                          // In logs.
  std::optional<rpc::TlsServerOptions> tls;  // Unset: plain HTTP.
  // A request line and headers longer than this are answered 400 and the connection closed.
  size_t max_request_bytes = 8192;
  // The whole exchange (TLS handshake, request, answer) must finish within this, or the
  // connection is closed: a client that stalls cannot hold it.
  std::chrono::milliseconds timeout{10000};
  // Connections beyond this many open at once are closed at once.
  size_t max_connections = 64;
};

// Answers one request; runs on the server's I/O thread, so it must not block for long.
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// Malformed request lines or headers get 400, methods other than GET and HEAD get 405 (with
// `Allow: GET, HEAD`); everything else goes to the handler.
//
// Thread safety: Start and Stop from one thread; the handler runs on the server's one I/O thread,
// one request at a time. ReloadTls may be called from any thread.
class HttpServer {
 public:
  HttpServer(HttpServerOptions options, HttpHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Listens; INVALID_ARGUMENT for unusable TLS files or address, UNAVAILABLE if it cannot bind.
  rpc::Status Start();
  // Closes the listener and every connection; idempotent.
  void Stop();
  rpc::Endpoint endpoint() const;
  // Reads the TLS files again for connections accepted from now on; keeps the old ones (and says
  // why) if the new ones cannot be used.
  rpc::Status ReloadTls();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The one-line reason phrase of a status code ("Not Found"); "Unknown" for codes not used here.
const char* ReasonPhrase(int status);

}  // namespace railyard::http
