// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to core/rpc: a plain TCP connection whose reads and writes go through the io_context's
// io_uring (UringService) instead of asio's epoll reactor. Connecting, socket options and
// endpoints stay with the asio socket it holds.

#include <asio.hpp>
#include <cstddef>
#include <utility>

#include "core/rpc/uring_service.h"

namespace railyard::rpc::internal {

// An asio AsyncReadStream and AsyncWriteStream (so asio::async_write and ReadFrame take it):
// handlers run on their associated executor, by default the socket's (the connection's strand).
//
// Thread safety: as an asio socket: one read and one write outstanding at a time, from the
// connection's strand. Destroy it only when no operation of its own is outstanding (its handlers
// hold the connection that owns it), while its io_context exists.
class UringStream {
 public:
  using executor_type = asio::ip::tcp::socket::executor_type;

  // REQUIRES: UringOf(socket's context).available().
  explicit UringStream(asio::ip::tcp::socket socket)
      : socket_(std::move(socket)),
        ring_(&UringOf(asio::query(socket_.get_executor(), asio::execution::context))) {}

  executor_type get_executor() { return socket_.get_executor(); }
  asio::ip::tcp::socket& socket() { return socket_; }

  // Reads into the first buffer of `buffers`; a peer that closed answers asio::error::eof.
  template <typename MutableBuffers, typename Token>
  auto async_read_some(const MutableBuffers& buffers, Token&& token) {
    const asio::mutable_buffer buffer = *asio::buffer_sequence_begin(buffers);
    return asio::async_initiate<Token, void(asio::error_code, size_t)>(
        [this, buffer](auto handler) {
          auto* op = new Op<decltype(handler)>(std::move(handler), socket_.get_executor(),
                                               buffer.size() > 0);
          ring_->StartReceive(socket_.native_handle(), buffer.data(), buffer.size(), op);
        },
        token);
  }

  // Writes from the first buffer of `buffers` (asio::async_write writes the rest).
  template <typename ConstBuffers, typename Token>
  auto async_write_some(const ConstBuffers& buffers, Token&& token) {
    const asio::const_buffer buffer = *asio::buffer_sequence_begin(buffers);
    return asio::async_initiate<Token, void(asio::error_code, size_t)>(
        [this, buffer](auto handler) {
          auto* op = new Op<decltype(handler)>(std::move(handler), socket_.get_executor(), false);
          ring_->StartSend(socket_.native_handle(), buffer.data(), buffer.size(), op);
        },
        token);
  }

  // Shuts the socket down, which ends its outstanding operations at once (a receive with EOF), and
  // closes it once they have reached the kernel. Idempotent.
  void Close();

 private:
  // One read or write: keeps the handler's executor busy until it has run there.
  template <typename Handler>
  class Op final : public UringService::Operation {
   public:
    Op(Handler handler, const executor_type& io_executor, bool zero_means_eof)
        : handler_(std::move(handler)),
          work_(asio::make_work_guard(handler_, io_executor)),
          zero_means_eof_(zero_means_eof) {}

    void Complete(int result) override {
      asio::error_code ec;
      size_t bytes = 0;
      if (result < 0) {
        ec.assign(-result, asio::error::get_system_category());
      } else if (result == 0 && zero_means_eof_) {
        ec = asio::error::eof;
      } else {
        bytes = static_cast<size_t>(result);
      }
      auto work = std::move(work_);
      auto handler = std::move(handler_);
      delete this;
      asio::dispatch(work.get_executor(), [handler = std::move(handler), ec, bytes]() mutable {
        std::move(handler)(ec, bytes);
      });
    }

    void Destroy() override { delete this; }

   private:
    Handler handler_;
    asio::executor_work_guard<asio::associated_executor_t<Handler, executor_type>> work_;
    bool zero_means_eof_;
  };

  asio::ip::tcp::socket socket_;
  UringService* ring_;
};

}  // namespace railyard::rpc::internal
