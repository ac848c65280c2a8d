// SPDX-License-Identifier: Apache-2.0
#pragma once

// A blocking HTTP/1.1 exchange for tests (plain or TLS), bounded by socket timeouts: the test
// side of core/http's listener and of Prometheus' API. Header-only; needs railyard_asio and
// OpenSSL (railyard_rpc brings both).

#include <sys/socket.h>
#include <sys/time.h>

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <cctype>
#include <exception>
#include <optional>
#include <string>

namespace railyard::testing {

struct HttpAnswer {
  int status = 0;  // 0: no answer (connection failed or closed early).
  std::string head;
  std::string body;
};

// A chunked body (RFC 9112, 7.1) as its bytes; nullopt if it is cut short or malformed.
inline std::optional<std::string> DecodeChunked(const std::string& chunked) {
  std::string body;
  size_t at = 0;
  for (int chunks = 0; chunks < 1000000; ++chunks) {  // Bounded: far above any answer here.
    const size_t line_end = chunked.find("\r\n", at);
    if (line_end == std::string::npos) return std::nullopt;
    size_t size = 0;
    try {
      size = std::stoul(chunked.substr(at, line_end - at), nullptr, 16);  // Extensions ignored.
    } catch (const std::exception&) {
      return std::nullopt;
    }
    at = line_end + 2;
    if (size == 0) return body;  // Trailers, if any, are not needed here.
    if (at + size + 2 > chunked.size()) return std::nullopt;
    body.append(chunked, at, size);
    at += size + 2;
  }
  return std::nullopt;
}

// Sends `raw` as it is (a request head, or anything) and reads until the server closes. A chunked
// answer's body is given decoded.
// `tls_ca`: set, the exchange is over TLS, trusting that CA file.
inline HttpAnswer HttpExchange(const std::string& host, uint16_t port, const std::string& raw,
                               const std::optional<std::string>& tls_ca = std::nullopt) {
  HttpAnswer answer;
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  asio::error_code ec;
  socket.connect({asio::ip::make_address(host, ec), port}, ec);
  if (ec) return answer;
  timeval five_s{5, 0};
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &five_s, sizeof five_s);
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &five_s, sizeof five_s);
  std::string bytes;
  auto exchange = [&](auto& stream) {
    asio::write(stream, asio::buffer(raw), ec);
    if (ec) return;
    char buffer[4096];
    for (int i = 0; i < 100000; ++i) {  // Bounded: at most 400 MB, far above any answer here.
      const size_t n = stream.read_some(asio::buffer(buffer), ec);
      bytes.append(buffer, n);
      if (ec) break;
    }
  };
  if (tls_ca) {
    asio::ssl::context context(asio::ssl::context::tls_client);
    context.load_verify_file(*tls_ca, ec);
    if (ec) return answer;
    asio::ssl::stream<asio::ip::tcp::socket&> tls(socket, context);
    tls.set_verify_mode(asio::ssl::verify_peer);
    tls.handshake(asio::ssl::stream_base::client, ec);
    if (ec) return answer;
    exchange(tls);
  } else {
    exchange(socket);
  }
  const size_t end = bytes.find("\r\n\r\n");
  if (bytes.rfind("HTTP/1.", 0) != 0 || end == std::string::npos) return answer;
  answer.status = std::stoi(bytes.substr(9, 3));
  answer.head = bytes.substr(0, end);
  answer.body = bytes.substr(end + 4);
  // Prometheus (Go's net/http) sends an answer larger than its buffer in chunks.
  std::string head_lower = answer.head;
  for (char& c : head_lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (head_lower.find("\r\ntransfer-encoding: chunked") != std::string::npos) {
    std::optional<std::string> body = DecodeChunked(answer.body);
    if (!body) return HttpAnswer{};  // Cut short: no whole answer.
    answer.body = std::move(*body);
  }
  return answer;
}

inline HttpAnswer HttpGet(const std::string& host, uint16_t port, const std::string& target,
                          const std::string& extra_headers = {},
                          const std::optional<std::string>& tls_ca = std::nullopt) {
  return HttpExchange(host, port,
                      "GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n" + extra_headers +
                          "Connection: close\r\n\r\n",
                      tls_ca);
}

}  // namespace railyard::testing
