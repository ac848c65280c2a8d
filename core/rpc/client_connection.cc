// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/client_connection.h"

#include "core/rpc/wire_convert.h"

namespace railyard::rpc::internal {

using asio::redirect_error;
using asio::use_awaitable;
using Clock = std::chrono::steady_clock;

ClientConnection::ClientConnection(asio::any_io_executor strand, uint32_t server,
                                   std::string server_address, uint32_t max_frame_bytes,
                                   ConnectionObserver* observer, const ConnectionTls& tls,
                                   std::shared_ptr<void> owner_work, bool uring)
    : owner_work_(std::move(owner_work)),
      strand_(strand),
      transport_(Transport::Make(asio::ip::tcp::socket(strand), tls.context, uring)),
      tls_server_name_(tls.server_name),
      tls_verify_peer_(tls.verify_peer),
      deadline_timer_(strand),
      health_timer_(strand),
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
  // Past the connect, what follows says how the server is set up, not whether it is up.
  refused_as_configured_ = true;
  if (!tls_status.ok()) {
    co_return Status{Code::kUnavailable,
                     "TLS handshake with " + server_address_ + " failed: " + tls_status.message()};
  }
  if (!status.ok() && !transport_.is_tls() && LooksLikeTlsRecord(read_buffers_.header)) {
    co_return Status{Code::kUnavailable,
                     server_address_ + " speaks TLS; this client is set up for plain TCP"};
  }
  if (!status.ok() && LooksLikeHttp(read_buffers_.header.data())) {
    co_return Status{Code::kUnavailable, server_address_ +
                                             " speaks HTTP, not Boxcar: a metrics listener "
                                             "(/metrics, --metrics-listen) or a web server?"};
  }
  if (!status.ok()) {
    // A frame of another protocol; a plain connection closed cleanly at its hello (as a TLS
    // server does); a TLS alert after the handshake (TLS 1.3 servers refuse a missing or
    // untrusted client certificate so; OpenSSL names them "tlsv13 alert certificate required").
    // A reset, or a TLS connection closed, may be a server going away.
    refused_as_configured_ =
        status.code() == Code::kProtocolError ||
        (!transport_.is_tls() && status.message().empty()) ||
        (transport_.is_tls() && status.message().find(" alert ") != std::string::npos);
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
    refused_as_configured_ = false;  // Too many connections, a server stopping: it may pass.
    co_return Status{Code::kUnavailable,
                     server_address_ + " refused the connection: " + frame.welcome().refusal()};
  }
  refused_as_configured_ = false;
  slot_ = frame.welcome().slot();
  server_state_ = FromWire(frame.welcome().state());
  co_return Status::Ok();
}

void ClientConnection::StartReading(const HealthChecks& checks) {
  asio::post(strand_, [self = shared_from_this(), checks] {
    self->last_heard_ = Clock::now();
    self->last_request_ = self->last_heard_;
    asio::co_spawn(self->strand_, self->ReadLoop(), asio::detached);
    if (checks.interval.count() > 0 && checks.timeout.count() > 0) {
      self->health_ = checks;
      asio::co_spawn(self->strand_, self->HealthLoop(), asio::detached);
    }
  });
}

std::chrono::milliseconds ClientConnection::HealthInterval(Clock::time_point now) const {
  const bool inactive = health_.inactive_after.count() > 0 &&
                        health_.inactive_interval > health_.interval &&
                        now - last_request_ >= health_.inactive_after;
  return inactive ? health_.inactive_interval : health_.interval;
}

asio::awaitable<void> ClientConnection::HealthLoop() {
  auto self = shared_from_this();
  // Cancelled by Fail (the loop checks closed_), and in its long sleep by a request (Send).
  asio::error_code ignored;
  Clock::time_point wake = last_heard_ + health_.interval;
  while (!closed_) {
    health_timer_.expires_at(wake);
    health_sleeps_long_ = HealthInterval(Clock::now()) > health_.interval;
    co_await health_timer_.async_wait(redirect_error(use_awaitable, ignored));
    health_sleeps_long_ = false;
    if (closed_) co_return;
    const Clock::time_point now = Clock::now();
    const std::chrono::milliseconds interval = HealthInterval(now);
    if (pending_id_) {  // A request is out: its deadline watches the server.
      wake = now + interval;
      continue;
    }
    if (now < last_heard_ + interval) {  // Heard from the server meanwhile.
      wake = last_heard_ + interval;
      continue;
    }
    const uint64_t id = next_ping_id_++;
    ping_outstanding_ = id;
    wire::Frame frame;
    frame.mutable_ping()->set_id(id);
    Enqueue(frame);
    health_timer_.expires_after(health_.timeout);
    co_await health_timer_.async_wait(redirect_error(use_awaitable, ignored));
    if (closed_) co_return;
    if (ping_outstanding_ == id) {
      Fail({Code::kUnavailable, server_address_ + " did not answer a health check within " +
                                    std::to_string(health_.timeout.count()) + " ms"});
      co_return;
    }
    wake = std::max(last_heard_ + HealthInterval(Clock::now()), Clock::now());
  }
}

void ClientConnection::OnStateHeard(ServerState state) {
  if (state == server_state_) return;
  server_state_ = state;
  observer_->OnServerState(shared_from_this(), state);
}

asio::awaitable<void> ClientConnection::ReadLoop() {
  auto self = shared_from_this();
  wire::Frame frame;
  while (!closed_) {
    // Not cleared here: parsing reuses the previous response's message (ParseFrameBody).
    const Status status = co_await transport_.ReadFrame(read_buffers_, max_frame_bytes_, frame);
    if (!status.ok()) {
      Fail(
          {Code::kUnavailable, status.message().empty()
                                   ? server_address_ + " closed the connection"
                                   : "connection to " + server_address_ + ": " + status.message()});
      co_return;
    }
    last_heard_ = Clock::now();
    switch (frame.body_case()) {
      case wire::Frame::kPong:
        if (ping_outstanding_ == frame.pong().id()) ping_outstanding_.reset();
        OnStateHeard(FromWire(frame.pong().state()));
        break;
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
                            Clock::time_point deadline, std::unique_ptr<PendingAttempt> done) {
  // Dispatched, not posted: a caller on the client's I/O thread (a callback issuing the next
  // call) sends at once instead of queueing behind every other handler.
  asio::dispatch(strand_, [self = shared_from_this(), id, &method, &payload, deadline,
                           done = std::move(done)]() mutable {
    if (self->closed_) {
      // Posted, so that `done` never runs inside Send, where the caller may hold a lock.
      asio::post(self->strand_, [self, done = std::move(done)]() mutable {
        PendingAttempt& attempt = *done;
        attempt.OnAttemptDone(
            std::move(done), *self,
            {Code::kUnavailable, "connection to " + self->server_address_ + " is closed"}, nullptr);
      });
      return;
    }
    const Clock::time_point now = Clock::now();
    self->pending_id_ = id;
    self->last_request_ = now;
    // An inactive connection is active again: its checks go back to the short interval (only the
    // first call after a long idle pays for the cancel).
    if (self->health_sleeps_long_) self->health_timer_.cancel();
    self->pending_deadline_ = deadline;
    self->pending_done_ = std::move(done);
    self->WatchDeadline();
    wire::Request* request = self->request_frame_.mutable_request();
    request->set_id(id);
    request->set_method(method);
    request->set_timeout_us(0);
    if (deadline != Clock::time_point::max()) {
      const auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - now);
      request->set_timeout_us(static_cast<uint64_t>(std::max<int64_t>(1, left.count())));
    }
    request->set_payload(payload);
    self->Enqueue(self->request_frame_);
    // A large payload's copy is not kept for the connection's life.
    if (request->payload().capacity() > FrameOutbox::kKeptBytes) {
      std::string().swap(*request->mutable_payload());
    }
  });
}

void ClientConnection::WatchDeadline() {
  if (pending_deadline_ == Clock::time_point::max()) return;
  // One wait at a time, moved only when a request's deadline comes before it: with the same
  // timeout on every call, a request schedules no timer work at all (the wait, when it fires,
  // looks at the request pending then).
  if (deadline_wait_pending_ && deadline_timer_.expiry() <= pending_deadline_) return;
  deadline_wait_pending_ = true;
  const uint64_t generation = ++deadline_wait_generation_;
  deadline_timer_.expires_at(pending_deadline_);
  deadline_timer_.async_wait([self = shared_from_this(), generation](const asio::error_code& ec) {
    self->OnDeadlineTimer(ec, generation);
  });
}

void ClientConnection::OnDeadlineTimer(const asio::error_code& ec, uint64_t generation) {
  if (generation != deadline_wait_generation_) return;  // A later wait took over.
  deadline_wait_pending_ = false;
  if (ec || closed_ || !pending_id_) return;
  if (Clock::now() < pending_deadline_) {  // Another request since: watch its deadline.
    WatchDeadline();
    return;
  }
  // The server may still be working on it; this connection cannot carry another request until
  // it answers, so it goes.
  CompletePending(
      {Code::kDeadlineExceeded, "no response from " + server_address_ + " before the deadline"},
      nullptr);
  Fail({Code::kCancelled, "deadline exceeded"});
}

void ClientConnection::Enqueue(const wire::Frame& frame) {
  outbox_.Append(frame);
  WriteNext();
}

void ClientConnection::WriteNext() {
  if (closed_) return;
  const std::string* batch = outbox_.StartBatch();
  if (!batch) return;  // Being written, or nothing queued.
  transport_.AsyncWrite(asio::buffer(*batch), [self = shared_from_this()](
                                                  const asio::error_code& ec, size_t) {
    self->outbox_.FinishBatch();
    if (ec) {
      self->Fail({Code::kUnavailable, "sending to " + self->server_address_ + ": " + ec.message()});
      return;
    }
    self->WriteNext();
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
  std::unique_ptr<PendingAttempt> done = std::move(pending_done_);
  PendingAttempt& attempt = *done;
  attempt.OnAttemptDone(std::move(done), *this, status, response);
}

void ClientConnection::Fail(const Status& why) {
  if (closed_) return;
  closed_ = true;
  deadline_timer_.cancel();
  health_timer_.cancel();
  transport_.Close();
  CompletePending(why, nullptr);
  observer_->OnConnectionLost(shared_from_this());
}

}  // namespace railyard::rpc::internal
