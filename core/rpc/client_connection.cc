#include "core/rpc/client_connection.h"

#include "core/rpc/wire_convert.h"

namespace railyard::rpc::internal {

using asio::redirect_error;
using asio::use_awaitable;
using Clock = std::chrono::steady_clock;

ClientConnection::ClientConnection(asio::any_io_executor strand, uint32_t server,
                                   std::string server_address, uint32_t max_frame_bytes,
                                   ConnectionObserver* observer, const ConnectionTls& tls)
    : strand_(strand),
      transport_(tls.context ? Transport(asio::ip::tcp::socket(strand), *tls.context)
                             : Transport(asio::ip::tcp::socket(strand))),
      tls_server_name_(tls.server_name),
      tls_verify_peer_(tls.verify_peer),
      deadline_timer_(strand),
      server_(server),
      server_address_(std::move(server_address)),
      max_frame_bytes_(max_frame_bytes),
      observer_(observer) {}

asio::awaitable<Status> ClientConnection::Open(asio::ip::tcp::endpoint target,
                                               const wire::Hello& hello,
                                               std::chrono::milliseconds timeout) {
  auto self = shared_from_this();
  // Closed before it began (Client::Stop): connecting now would open a socket nobody closes.
  if (closed_) co_return Status{Code::kCancelled, "connection closed by the client"};
  auto timed_out = std::make_shared<bool>(false);
  deadline_timer_.expires_after(timeout);
  deadline_timer_.async_wait([self, timed_out](const asio::error_code& ec) {
    if (ec) return;
    *timed_out = true;
    self->transport_.Close();
  });

  asio::error_code ec;
  co_await transport_.socket().async_connect(target, redirect_error(use_awaitable, ec));
  wire::Frame frame;
  Status status;
  Status tls_status;
  if (!ec) transport_.socket().set_option(asio::ip::tcp::no_delay(true), ec);
  if (!ec && transport_.is_tls()) {
    tls_status = PrepareClientStream(transport_.tls(), tls_server_name_, tls_verify_peer_);
    if (tls_status.ok()) tls_status = co_await transport_.Handshake(asio::ssl::stream_base::client);
  }
  if (!ec && tls_status.ok()) {
    *frame.mutable_hello() = hello;
    write_buffer_ = EncodeFrame(frame);
    ec = co_await transport_.Write(asio::buffer(write_buffer_));
  }
  if (!ec && tls_status.ok()) {
    frame.Clear();
    status = co_await transport_.ReadFrame(read_buffers_, max_frame_bytes_, frame);
  }
  deadline_timer_.cancel();

  if (*timed_out) {
    co_return Status{Code::kUnavailable, "connecting to " + server_address_ + " timed out after " +
                                             std::to_string(timeout.count()) + " ms"};
  }
  if (ec)
    co_return Status{Code::kUnavailable, "connecting to " + server_address_ + ": " + ec.message()};
  if (!tls_status.ok()) {
    co_return Status{Code::kUnavailable,
                     "TLS handshake with " + server_address_ + " failed: " + tls_status.message()};
  }
  if (!status.ok() && !transport_.is_tls() && LooksLikeTlsRecord(read_buffers_.header)) {
    co_return Status{Code::kUnavailable,
                     server_address_ + " speaks TLS; this client is set up for plain TCP"};
  }
  if (!status.ok()) {
    co_return Status{
        Code::kUnavailable,
        "handshake with " + server_address_ + ": " +
            (status.message().empty() ? (transport_.is_tls() ? "connection closed"
                                                             : "connection closed (does the server "
                                                               "require TLS?)")
                                      : status.message())};
  }
  if (frame.body_case() != wire::Frame::kWelcome) {
    co_return Status{Code::kProtocolError,
                     server_address_ + " answered the hello with another frame"};
  }
  if (!frame.welcome().refusal().empty()) {
    co_return Status{Code::kUnavailable,
                     server_address_ + " refused the connection: " + frame.welcome().refusal()};
  }
  slot_ = frame.welcome().slot();
  server_state_ = FromWire(frame.welcome().state());
  co_return Status::Ok();
}

void ClientConnection::StartReading() { asio::co_spawn(strand_, ReadLoop(), asio::detached); }

asio::awaitable<void> ClientConnection::ReadLoop() {
  auto self = shared_from_this();
  wire::Frame frame;
  while (!closed_) {
    frame.Clear();
    const Status status = co_await transport_.ReadFrame(read_buffers_, max_frame_bytes_, frame);
    if (!status.ok()) {
      Fail(
          {Code::kUnavailable, status.message().empty()
                                   ? server_address_ + " closed the connection"
                                   : "connection to " + server_address_ + ": " + status.message()});
      co_return;
    }
    switch (frame.body_case()) {
      case wire::Frame::kResponse:
        // A response to anything but the pending request is stale; it cannot happen while
        // timeouts close the connection, but is harmless to drop.
        if (pending_id_ && *pending_id_ == frame.response().id()) {
          CompletePending(Status::Ok(), frame.mutable_response());
        }
        break;
      case wire::Frame::kStateChange:
        server_state_ = FromWire(frame.state_change().state());
        observer_->OnServerState(self, server_state_);
        break;
      default:
        Fail({Code::kUnavailable,
              "protocol error: " + server_address_ + " sent an unexpected frame"});
        co_return;
    }
  }
}

void ClientConnection::Send(uint64_t id, const std::string& method, const std::string& payload,
                            Clock::time_point deadline, AttemptCallback done) {
  // Encode on the caller's thread so the strand only does I/O.
  wire::Frame frame;
  wire::Request* request = frame.mutable_request();
  request->set_id(id);
  request->set_method(method);
  if (deadline != Clock::time_point::max()) {
    const auto left =
        std::chrono::duration_cast<std::chrono::microseconds>(deadline - Clock::now());
    request->set_timeout_us(static_cast<uint64_t>(std::max<int64_t>(1, left.count())));
  }
  request->set_payload(payload);
  std::string bytes = EncodeFrame(frame);

  asio::post(strand_, [self = shared_from_this(), id, deadline, bytes = std::move(bytes),
                       done = std::move(done)]() mutable {
    if (self->closed_) {
      done({Code::kUnavailable, "connection to " + self->server_address_ + " is closed"}, nullptr);
      return;
    }
    self->pending_id_ = id;
    self->pending_done_ = std::move(done);
    self->write_buffer_ = std::move(bytes);
    if (deadline != Clock::time_point::max()) {
      self->deadline_timer_.expires_at(deadline);
      self->deadline_timer_.async_wait([self, id](const asio::error_code& ec) {
        if (ec || self->pending_id_ != id) return;
        // The server may still be working on it; this connection cannot carry another request
        // until it answers, so it goes.
        self->CompletePending(
            {Code::kDeadlineExceeded,
             "no response from " + self->server_address_ + " before the deadline"},
            nullptr);
        self->Fail({Code::kCancelled, "deadline exceeded"});
      });
    }
    self->transport_.AsyncWrite(
        asio::buffer(self->write_buffer_), [self](const asio::error_code& ec, size_t) {
          if (ec) {
            self->Fail(
                {Code::kUnavailable, "sending to " + self->server_address_ + ": " + ec.message()});
          }
        });
  });
}

void ClientConnection::Close() {
  asio::post(strand_, [self = shared_from_this()] {
    self->Fail({Code::kCancelled, "connection closed by the client"});
  });
}

void ClientConnection::CompletePending(const Status& status, wire::Response* response) {
  if (!pending_id_) return;
  pending_id_.reset();
  AttemptCallback done = std::move(pending_done_);
  pending_done_ = nullptr;
  done(status, response);
}

void ClientConnection::Fail(const Status& why) {
  if (closed_) return;
  closed_ = true;
  deadline_timer_.cancel();
  transport_.Close();
  CompletePending(why, nullptr);
  observer_->OnConnectionLost(shared_from_this());
}

}  // namespace railyard::rpc::internal
