// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to core/rpc: one connection's byte stream: plain TCP on asio's epoll reactor, plain TCP
// on the io_context's io_uring (UringStream), or TLS over TCP (always on epoll). Each operation
// picks its stream with one branch, so plain connections pay no per-byte indirection for TLS.

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <functional>
#include <string>
#include <utility>
#include <variant>

#include "core/rpc/frame_io.h"
#include "core/rpc/status.h"
#include "core/rpc/tls_context.h"
#include "core/rpc/uring_stream.h"

namespace railyard::rpc::internal {

// Chooses Transport's io_uring constructor.
struct UseUring {};

// Thread safety: none; use from the connection's strand.
class Transport {
 public:
  // A plain connection on epoll.
  explicit Transport(asio::ip::tcp::socket socket);
  // A plain connection on io_uring. REQUIRES: UringOf(socket's context).available().
  Transport(asio::ip::tcp::socket socket, UseUring);
  // TLS over `socket` (connected or not yet). `context` must outlive the transport.
  Transport(asio::ip::tcp::socket socket, asio::ssl::context& context);
  // The one a connection of a server or client speaks: TLS if `tls` is set, else io_uring if
  // `uring`, else plain epoll.
  static Transport Make(asio::ip::tcp::socket socket, asio::ssl::context* tls, bool uring) {
    if (tls != nullptr) return Transport(std::move(socket), *tls);
    if (uring) return Transport(std::move(socket), UseUring{});
    return Transport(std::move(socket));
  }
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  bool is_tls() const { return std::holds_alternative<TlsStream>(stream_); }
  // The TCP socket underneath (for connect, options, endpoints and closing).
  asio::ip::tcp::socket& socket();
  // REQUIRES: is_tls().
  TlsStream& tls() { return std::get<TlsStream>(stream_); }

  // The TLS handshake; OK at once on a plain transport. The error says what failed, with the
  // certificate verification result when that is the reason.
  asio::awaitable<Status> Handshake(asio::ssl::stream_base::handshake_type type);

  asio::awaitable<Status> ReadFrame(FrameReadBuffers& buffers, uint32_t max_frame_bytes,
                                    Frame& frame, const std::function<void()>& on_header = {}) {
    return std::visit(
        [&](auto& stream) {
          return internal::ReadFrame(stream, buffers, max_frame_bytes, frame, on_header);
        },
        stream_);
  }

  // asio::async_write of the whole buffer; `handler(error_code, size_t)`.
  template <typename Handler>
  void AsyncWrite(asio::const_buffer buffer, Handler&& handler) {
    if (auto* plain = std::get_if<asio::ip::tcp::socket>(&stream_)) {
      asio::async_write(*plain, buffer, std::forward<Handler>(handler));
    } else if (auto* uring = std::get_if<UringStream>(&stream_)) {
      asio::async_write(*uring, buffer, std::forward<Handler>(handler));
    } else {
      asio::async_write(std::get<TlsStream>(stream_), buffer, std::forward<Handler>(handler));
    }
  }

  asio::awaitable<asio::error_code> Write(asio::const_buffer buffer);

  // Shuts down and closes the TCP socket at once (no TLS close_notify: a peer that stopped
  // reading must not be able to hold the close; on io_uring the number is given back once what
  // was queued on it has reached the kernel). Idempotent.
  void Close();

 private:
  std::variant<asio::ip::tcp::socket, UringStream, TlsStream> stream_;
};

}  // namespace railyard::rpc::internal
