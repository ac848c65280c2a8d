// SPDX-License-Identifier: Apache-2.0
#include "core/http/http_server.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <asio.hpp>
#include <asio/ssl.hpp>
#include <atomic>
#include <thread>

#include "core/base/mutex.h"
#include "core/http/http_message.h"
#include "core/rpc/tls_context.h"
#include "core/rpc/transport.h"

namespace railyard::http {

using rpc::internal::Transport;

namespace {

// asio::async_read_until's match condition: the blank line that ends a request head, after CR LF
// or bare LF line ends.
struct EndOfHead {
  template <typename It>
  std::pair<It, bool> operator()(It begin, It end) const {
    for (It i = begin; i != end; ++i) {
      if (*i != '\n') continue;
      It next = i;
      ++next;
      if (next != end && *next == '\r') ++next;
      if (next != end && *next == '\n') return {++next, true};
    }
    return {end, false};
  }
};

HttpResponse PlainAnswer(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body) + "\n";
  return r;
}

}  // namespace

}  // namespace railyard::http

namespace asio {
template <>
struct is_match_condition<railyard::http::EndOfHead> : public std::true_type {};
}  // namespace asio

namespace railyard::http {

struct HttpServer::Impl {
  Impl(HttpServerOptions o, HttpHandler h)
      : options(std::move(o)), handler(std::move(h)), acceptor(io) {}

  std::shared_ptr<asio::ssl::context> TlsContext() {
    base::MutexLock lock(tls_mu);
    return tls;
  }

  asio::awaitable<void> AcceptLoop() {
    for (;;) {
      asio::error_code ec;
      asio::ip::tcp::socket socket =
          co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
      if (ec) {
        spdlog::warn("http {}: accept failed: {}", options.name, ec.message());
        asio::steady_timer pause(io, std::chrono::milliseconds(50));
        co_await pause.async_wait(asio::use_awaitable);
        continue;
      }
      if (open_connections >= options.max_connections) {
        asio::error_code ignored;
        socket.close(ignored);
        continue;
      }
      ++open_connections;
      asio::co_spawn(io, Serve(std::move(socket)), asio::detached);
    }
  }

  // One exchange on one connection, bounded by options.timeout as a whole.
  asio::awaitable<void> Serve(asio::ip::tcp::socket socket) {
    const std::shared_ptr<asio::ssl::context> context = TlsContext();
    Transport transport =
        context ? Transport(std::move(socket), *context) : Transport(std::move(socket));
    asio::steady_timer limit(io, options.timeout);
    limit.async_wait([&transport](const asio::error_code& ec) {
      if (!ec) transport.Close();
    });
    std::string peer;
    {
      asio::error_code ec;
      const asio::ip::tcp::endpoint remote = transport.socket().remote_endpoint(ec);
      if (!ec) peer = remote.address().to_string() + ":" + std::to_string(remote.port());
    }
    if (rpc::Status s = co_await transport.Handshake(asio::ssl::stream_base::server); s.ok()) {
      if (transport.is_tls()) {
        co_await Exchange(transport.tls(), transport, peer);
      } else {
        co_await Exchange(transport.socket(), transport, peer);
      }
    }
    limit.cancel();
    transport.Close();
    --open_connections;
  }

  template <typename Stream>
  asio::awaitable<void> Exchange(Stream& stream, Transport& transport, const std::string& peer) {
    // A request line starts with its method, in capitals. Anything else (a Boxcar hello, a
    // binary probe) is answered at once instead of after the whole timeout, so that a client
    // pointed at this port by mistake reads "HTTP/1.1 400" and can say the port speaks HTTP.
    std::string head(std::min<size_t>(512, options.max_request_bytes), '\0');
    asio::error_code ec;
    const size_t first = co_await stream.async_read_some(
        asio::buffer(head), asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return;
    head.resize(first);
    const bool request_line = first > 0 && head[0] >= 'A' && head[0] <= 'Z';
    size_t length = 0;
    if (request_line) {
      length = co_await asio::async_read_until(
          stream, asio::dynamic_buffer(head, options.max_request_bytes), EndOfHead{},
          asio::redirect_error(asio::use_awaitable, ec));
    }
    HttpRequest request;
    request.peer = peer;
    HttpResponse response;
    std::string error;
    if (!request_line) {
      response = PlainAnswer(400, "bad request: this port speaks HTTP");
    } else if (ec == asio::error::not_found) {
      response = PlainAnswer(400, "bad request: the request head is longer than " +
                                      std::to_string(options.max_request_bytes) + " bytes");
    } else if (ec) {
      co_return;  // Closed, reset or timed out: nobody to answer.
    } else if (!ParseRequestHead(std::string_view(head).substr(0, length), &request, &error)) {
      response = PlainAnswer(400, "bad request: " + error);
    } else if (request.method != "GET" && request.method != "HEAD") {
      response = PlainAnswer(405, "method not allowed: only GET and HEAD");
      response.headers.emplace_back("Allow", "GET, HEAD");
    } else {
      response = handler(request);
    }
    const std::string bytes = SerializeResponse(response, request.method == "HEAD");
    (void)co_await transport.Write(asio::buffer(bytes));
  }

  const HttpServerOptions options;
  const HttpHandler handler;
  asio::io_context io{1};
  asio::ip::tcp::acceptor acceptor;
  std::thread thread;
  size_t open_connections = 0;  // On the I/O thread only.
  uint16_t port = 0;
  bool started = false;
  base::Mutex tls_mu;
  std::shared_ptr<asio::ssl::context> tls RAILYARD_GUARDED_BY(tls_mu);
};

HttpServer::HttpServer(HttpServerOptions options, HttpHandler handler)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handler))) {}

HttpServer::~HttpServer() { Stop(); }

rpc::Status HttpServer::Start() {
  Impl& m = *impl_;
  if (m.options.tls) {
    std::unique_ptr<asio::ssl::context> context;
    if (rpc::Status s = rpc::internal::MakeServerTlsContext(*m.options.tls, &context); !s.ok()) {
      return {s.code(), "http " + m.options.name + ": " + s.message()};
    }
    base::MutexLock lock(m.tls_mu);
    m.tls = std::move(context);
  }
  asio::error_code ec;
  const asio::ip::address address = asio::ip::make_address(m.options.host, ec);
  if (ec) return {rpc::Code::kInvalidArgument, "bad listen address '" + m.options.host + "'"};
  const asio::ip::tcp::endpoint endpoint(address, m.options.port);
  m.acceptor.open(endpoint.protocol(), ec);
  if (!ec) m.acceptor.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) m.acceptor.bind(endpoint, ec);
  if (!ec) m.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return {rpc::Code::kUnavailable, "cannot listen on " + m.options.host + ":" +
                                         std::to_string(m.options.port) + ": " + ec.message()};
  }
  m.port = m.acceptor.local_endpoint().port();
  asio::co_spawn(m.io, m.AcceptLoop(), asio::detached);
  m.thread = std::thread([&io = m.io] { io.run(); });
  m.started = true;
  return rpc::Status::Ok();
}

void HttpServer::Stop() {
  Impl& m = *impl_;
  if (!m.started) return;
  m.started = false;
  // Stopping the loop abandons the connections' coroutines; the io_context's destruction frees
  // them and closes their sockets.
  m.io.stop();
  m.thread.join();
  asio::error_code ignored;
  m.acceptor.close(ignored);
}

rpc::Endpoint HttpServer::endpoint() const { return {impl_->options.host, impl_->port}; }

rpc::Status HttpServer::ReloadTls() {
  Impl& m = *impl_;
  if (!m.options.tls) {
    return {rpc::Code::kFailedPrecondition, "http " + m.options.name + " has no TLS to reload"};
  }
  std::unique_ptr<asio::ssl::context> context;
  if (rpc::Status s = rpc::internal::MakeServerTlsContext(*m.options.tls, &context); !s.ok()) {
    return {s.code(), "http " + m.options.name + ": " + s.message() + "; keeping the loaded one"};
  }
  base::MutexLock lock(m.tls_mu);
  m.tls = std::move(context);
  return rpc::Status::Ok();
}

}  // namespace railyard::http
