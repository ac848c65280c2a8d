// SPDX-License-Identifier: Apache-2.0
// The "raw" side of rpc_bench: the least a length-prefixed request/response can cost over the same
// kind of loopback connections, as the physical limit Boxcar is measured against. Plain asio with
// completion handlers (no coroutines), no protobuf, no pool, no selection, no deadline timer, no
// counters: one connection per caller, a 4-byte big-endian length and the payload each way, the
// server echoing the frame's bytes as they came.
//
// Threads as Boxcar's in rpc_bench: the server runs one I/O thread per core, each connection on
// its own strand; the client runs `client_threads` I/O threads on one io_context (a connection has
// one operation out at a time, so its handlers never overlap), and a caller whose request ended on
// one issues the next one inline there.
#include <algorithm>
#include <array>
#include <asio.hpp>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "bench/echo_system.h"
#include "bench/raw_frame.h"
#include "core/base/usable_cores.h"

namespace railyard::bench {
namespace {

using raw_frame::kReadBufferBytes;
using raw_frame::WholeFrameBytes;

// One accepted connection: reads whatever has arrived, answers every whole frame in it with the
// same bytes (one write for all of them), and reads again once that write is done.
class RawSession : public std::enable_shared_from_this<RawSession> {
 public:
  explicit RawSession(asio::ip::tcp::socket socket) : socket_(std::move(socket)) {}

  void Read() {
    socket_.async_read_some(asio::buffer(in_.data() + filled_, in_.size() - filled_),
                            [self = shared_from_this()](const asio::error_code& ec, size_t got) {
                              if (ec) return;  // Closed: the session goes with its last handler.
                              self->filled_ += got;
                              self->AnswerWholeFrames();
                            });
  }

 private:
  void AnswerWholeFrames() {
    size_t whole = 0;
    while (const size_t frame = WholeFrameBytes(in_.data() + whole, filled_ - whole)) {
      whole += frame;
    }
    if (whole == 0) {
      if (filled_ == in_.size()) return;  // A frame larger than the buffer: not this benchmark's.
      Read();
      return;
    }
    out_.assign(in_.begin(), in_.begin() + static_cast<std::ptrdiff_t>(whole));
    std::memmove(in_.data(), in_.data() + whole, filled_ - whole);
    filled_ -= whole;
    asio::async_write(socket_, asio::buffer(out_),
                      [self = shared_from_this()](const asio::error_code& ec, size_t) {
                        if (!ec) self->AnswerWholeFrames();
                      });
  }

  asio::ip::tcp::socket socket_;
  std::array<unsigned char, kReadBufferBytes> in_{};
  size_t filled_ = 0;
  std::vector<unsigned char> out_;
};

class RawEcho final : public EchoSystem {
 public:
  RawEcho(ClosedLoop& loop, std::string payload, size_t client_threads)
      : loop_(loop),
        payload_(std::move(payload)),
        client_threads_(std::max<size_t>(1, client_threads)) {}
  ~RawEcho() override { Stop(); }

  rpc::Status Start(size_t concurrency) override {
    server_threads_ = base::UsableCores();  // As Boxcar's server default.
    asio::error_code ec;
    acceptor_.open(asio::ip::tcp::v4(), ec);
    if (!ec) acceptor_.bind({asio::ip::make_address_v4("127.0.0.1"), 0}, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return {rpc::Code::kUnavailable, "raw server: " + ec.message()};
    const asio::ip::tcp::endpoint endpoint = acceptor_.local_endpoint();
    Accept();
    server_work_.emplace(server_io_.get_executor());
    for (size_t i = 0; i < server_threads_; ++i)
      server_threads_list_.emplace_back([this] { server_io_.run(); });

    request_ = raw_frame::Encode(payload_);

    connections_.reserve(concurrency);
    for (size_t i = 0; i < concurrency; ++i) {
      auto& connection = connections_.emplace_back(std::make_unique<Connection>(client_io_));
      connection->socket.connect(endpoint, ec);
      if (!ec) connection->socket.set_option(asio::ip::tcp::no_delay(true), ec);
      if (ec) return {rpc::Code::kUnavailable, "raw client: connecting: " + ec.message()};
    }
    client_work_.emplace(client_io_.get_executor());
    for (size_t i = 0; i < client_threads_; ++i) {
      client_threads_list_.emplace_back([this] { client_io_.run(); });
    }
    return rpc::Status::Ok();
  }

  void Echo(size_t caller) override {
    // Inline on the client's I/O thread (where every request but a caller's first is issued).
    asio::dispatch(client_io_, [this, caller] {
      Connection& connection = *connections_[caller];
      in_flight_.fetch_add(1, std::memory_order_relaxed);
      asio::async_write(connection.socket, asio::buffer(request_),
                        [this, caller](const asio::error_code& ec, size_t) {
                          if (ec) {
                            End(caller, false);
                            return;
                          }
                          connections_[caller]->filled = 0;
                          ReadAnswer(caller);
                        });
    });
  }

  void Stop() override {
    if (stopped_) return;
    stopped_ = true;
    // Closing the client's sockets on its thread fails whatever is in flight, which ends it.
    asio::post(client_io_, [this] {
      for (auto& connection : connections_) {
        asio::error_code ignored;
        connection->socket.close(ignored);
      }
    });
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (in_flight_.load(std::memory_order_acquire) > 0 &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    client_work_.reset();
    client_io_.stop();
    for (std::thread& thread : client_threads_list_) thread.join();
    client_threads_list_.clear();
    asio::post(server_io_, [this] {
      asio::error_code ignored;
      acceptor_.close(ignored);
    });
    server_work_.reset();
    server_io_.stop();
    for (std::thread& thread : server_threads_list_) thread.join();
    server_threads_list_.clear();
  }

  std::string Describe() const override {
    return "server: " + std::to_string(server_threads_) +
           " I/O threads, a strand per connection, echoing frames; client: " +
           std::to_string(client_threads_) +
           " I/O thread(s), one connection per caller; no protobuf, pool, deadline or counters";
  }

 private:
  struct Connection {
    explicit Connection(asio::io_context& io) : socket(io) {}
    asio::ip::tcp::socket socket;
    std::array<unsigned char, kReadBufferBytes> in{};
    size_t filled = 0;
  };

  void Accept() {
    acceptor_.async_accept(asio::make_strand(server_io_),
                           [this](const asio::error_code& ec, asio::ip::tcp::socket socket) {
                             if (ec) return;  // Closed at Stop.
                             asio::error_code ignored;
                             socket.set_option(asio::ip::tcp::no_delay(true), ignored);
                             std::make_shared<RawSession>(std::move(socket))->Read();
                             Accept();
                           });
  }

  void ReadAnswer(size_t caller) {
    Connection& connection = *connections_[caller];
    connection.socket.async_read_some(
        asio::buffer(connection.in.data() + connection.filled,
                     connection.in.size() - connection.filled),
        [this, caller](const asio::error_code& ec, size_t got) {
          if (ec) {
            End(caller, false);
            return;
          }
          Connection& c = *connections_[caller];
          c.filled += got;
          const size_t whole = WholeFrameBytes(c.in.data(), c.filled);
          if (whole == 0 && c.filled < c.in.size()) {
            ReadAnswer(caller);
            return;
          }
          End(caller, whole == request_.size() && c.filled == whole &&
                          std::memcmp(c.in.data(), request_.data(), whole) == 0);
        });
  }

  void End(size_t caller, bool ok) {
    in_flight_.fetch_sub(1, std::memory_order_release);
    loop_.Done(caller, ok);
  }

  ClosedLoop& loop_;
  const std::string payload_;
  std::string request_;  // Header and payload, sent unchanged by every call.
  asio::io_context server_io_;
  asio::io_context client_io_;
  asio::ip::tcp::acceptor acceptor_{server_io_};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> server_work_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> client_work_;
  std::vector<std::thread> server_threads_list_;
  std::vector<std::thread> client_threads_list_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::atomic<int64_t> in_flight_{0};
  const size_t client_threads_;
  size_t server_threads_ = 0;
  bool stopped_ = false;
};

}  // namespace

std::unique_ptr<EchoSystem> MakeRawEcho(ClosedLoop& loop, std::string payload,
                                        size_t client_threads) {
  return std::make_unique<RawEcho>(loop, std::move(payload), client_threads);
}

}  // namespace railyard::bench
