// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/transport.h"

namespace railyard::rpc::internal {

Transport::Transport(asio::ip::tcp::socket socket)
    : stream_(std::in_place_type<asio::ip::tcp::socket>, std::move(socket)) {}

Transport::Transport(asio::ip::tcp::socket socket, UseUring)
    : stream_(std::in_place_type<UringStream>, std::move(socket)) {}

Transport::Transport(asio::ip::tcp::socket socket, asio::ssl::context& context)
    : stream_(std::in_place_type<TlsStream>, std::move(socket), context) {}

asio::ip::tcp::socket& Transport::socket() {
  if (auto* plain = std::get_if<asio::ip::tcp::socket>(&stream_)) return *plain;
  if (auto* uring = std::get_if<UringStream>(&stream_)) return uring->socket();
  return std::get<TlsStream>(stream_).next_layer();
}

asio::awaitable<Status> Transport::Handshake(asio::ssl::stream_base::handshake_type type) {
  if (!is_tls()) co_return Status::Ok();
  asio::error_code ec;
  co_await tls().async_handshake(type, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return Status{Code::kUnavailable, DescribeTlsError(ec, tls())};
  co_return Status::Ok();
}

asio::awaitable<asio::error_code> Transport::Write(asio::const_buffer buffer) {
  asio::error_code ec;
  if (auto* plain = std::get_if<asio::ip::tcp::socket>(&stream_)) {
    co_await asio::async_write(*plain, buffer, asio::redirect_error(asio::use_awaitable, ec));
  } else if (auto* uring = std::get_if<UringStream>(&stream_)) {
    co_await asio::async_write(*uring, buffer, asio::redirect_error(asio::use_awaitable, ec));
  } else {
    co_await asio::async_write(tls(), buffer, asio::redirect_error(asio::use_awaitable, ec));
  }
  co_return ec;
}

void Transport::Close() {
  if (auto* uring = std::get_if<UringStream>(&stream_)) {
    uring->Close();
    return;
  }
  asio::ip::tcp::socket& tcp = socket();
  asio::error_code ignored;
  tcp.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  tcp.close(ignored);
}

}  // namespace railyard::rpc::internal
