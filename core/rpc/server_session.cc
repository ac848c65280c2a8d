// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/server_session.h"

#include <algorithm>
#include <functional>

#include "core/rpc/frame_io.h"
#include "core/rpc/logging.h"
#include "core/rpc/wire_convert.h"

namespace railyard::rpc::internal {

using Clock = std::chrono::steady_clock;

ServerSession::ServerSession(ServerCore& core, asio::ip::tcp::socket socket)
    : core_(core),
      strand_(socket.get_executor()),
      tls_context_(core.TlsContext()),
      transport_(Transport::Make(std::move(socket), tls_context_.get(), core.uring.load())),
      handshake_timer_(strand_),
      read_timer_(strand_) {
  asio::error_code ec;
  const auto remote = transport_.socket().remote_endpoint(ec);
  peer_ = ec ? "unknown" : remote.address().to_string() + ":" + std::to_string(remote.port());
  transport_.socket().set_option(asio::ip::tcp::no_delay(true), ec);
}

ServerSession::~ServerSession() {
  // Normally CloseNow already released the slot; this covers sessions torn down with the
  // io_context at Stop, whose coroutines never got to run their exit path.
  if (slot_) core_.slots.Release(*slot_);
}

void ServerSession::Start() {
  auto self = shared_from_this();
  handshake_timer_.expires_after(core_.options.handshake_timeout);
  handshake_timer_.async_wait([self](const asio::error_code& ec) {
    if (!ec && !self->slot_ && !self->closed_) {
      self->core_.timeouts.fetch_add(1, std::memory_order_relaxed);
      self->CloseNow({Code::kProtocolError, "no handshake within the handshake timeout"});
    }
  });
  asio::co_spawn(strand_, Run(), asio::detached);
}

void ServerSession::PushState(ServerState state) {
  asio::post(strand_, [self = shared_from_this(), state] {
    if (self->closed_ || !self->slot_) return;
    Frame frame;
    frame.mutable_state_change()->set_state(ToWire(state));
    self->Send(frame);
    if (state != ServerState::kLameDuck) self->client_knows_lame_duck_ = false;
  });
}

void ServerSession::Close() {
  asio::post(strand_, [self = shared_from_this()] { self->CloseNow(Status::Ok()); });
}

asio::awaitable<void> ServerSession::Run() {
  auto self = shared_from_this();
  Frame frame;
  // The TLS handshake runs under the handshake timer armed in Start, and takes no slot.
  if (Status tls = co_await transport_.Handshake(asio::ssl::stream_base::server); !tls.ok()) {
    if (!closed_) {
      core_.tls_handshake_failures.fetch_add(1, std::memory_order_relaxed);
      CloseNow({Code::kProtocolError, "TLS handshake failed: " + tls.message()});
    }
    co_return;
  }
  Status status =
      co_await transport_.ReadFrame(read_buffers_, core_.options.max_frame_bytes, frame);
  if (!status.ok() && !transport_.is_tls() && LooksLikeTlsRecord(read_buffers_.header)) {
    status = {Code::kProtocolError, "the peer speaks TLS, but this listener is plain TCP"};
  } else if (!status.ok() && LooksLikeHttp(read_buffers_.header.data())) {
    status = {Code::kProtocolError,
              "the peer speaks HTTP (a browser or a scraper?), but this "
              "is a Boxcar listener"};
  }
  if (status.ok()) status = Handshake(frame);
  const std::function<void()> frame_started = [this] {
    ArmTimer(core_.options.frame_timeout, "a slow frame");
  };
  while (status.ok() && !closed_) {
    // Not cleared here: parsing reuses the previous request's message (ParseFrameBody).
    ArmIdleTimer();
    status = co_await transport_.ReadFrame(read_buffers_, core_.options.max_frame_bytes, frame,
                                           frame_started);
    if (!status.ok()) break;
    if (frame.body_case() == Frame::kPing) {
      AnswerPing(frame.ping().id());
    } else if (frame.body_case() != Frame::kRequest) {
      status = {Code::kProtocolError, "expected a request frame"};
    } else if (busy_) {
      status = {Code::kProtocolError, "second request while one is in flight"};
    } else {
      StartRequest(*frame.mutable_request());
    }
  }
  if (refused_) {
    CloseAfterSending(status);
  } else {
    CloseNow(status);
  }
}

Status ServerSession::Handshake(const Frame& frame) {
  if (frame.body_case() != Frame::kHello) return {Code::kProtocolError, "expected a hello frame"};
  const wire::Hello& hello = frame.hello();
  handshake_timer_.cancel();
  Frame answer;
  wire::Welcome* welcome = answer.mutable_welcome();
  welcome->set_protocol_version(kProtocolVersion);
  welcome->set_server_name(core_.options.name);
  const ServerState state = core_.state.load();
  welcome->set_state(ToWire(state));
  client_knows_lame_duck_ = state == ServerState::kLameDuck;
  if (hello.protocol_version() != kProtocolVersion) {
    welcome->set_refusal("unsupported protocol version " +
                         std::to_string(hello.protocol_version()) + " (server speaks " +
                         std::to_string(kProtocolVersion) + ")");
    Send(answer);
    refused_ = true;
    return {Code::kProtocolError, welcome->refusal()};
  }
  client_id_ = hello.client_id();
  client_name_ = hello.client_name();
  if (core_.options.authenticate) {
    principal_ = core_.options.authenticate({client_name_, peer_, hello.credentials()});
  }
  slot_ = core_.slots.Allocate({client_id_, client_name_, peer_, activity_});
  idle_from_ = Clock::now();
  welcome->set_slot(*slot_);
  Send(answer);
  return Status::Ok();
}

void ServerSession::StartRequest(wire::Request& request) {
  busy_ = true;
  activity_->busy.store(true, std::memory_order_relaxed);
  activity_->requests.fetch_add(1, std::memory_order_relaxed);
  core_.in_flight.fetch_add(1);
  core_.requests.fetch_add(1, std::memory_order_relaxed);
  const Clock::time_point arrived = Clock::now();
  core_.request_rate.Add(arrived);
  core_.last_request_ns = arrived.time_since_epoch().count();

  const uint64_t id = request.id();
  if (client_knows_lame_duck_ && core_.state.load() == ServerState::kLameDuck) {
    core_.OnRefused();
    FinishRequest(id, {{Code::kLameDuck, "server is draining"}, {}});
    return;
  }
  if (!core_.handlers_ready.load()) {
    core_.OnRefused();
    FinishRequest(id, {{Code::kUnavailable, "server is starting"}, {}});
    return;
  }
  const Clock::time_point deadline =
      request.timeout_us() == 0 ? Clock::time_point::max()
                                : arrived + std::chrono::microseconds(request.timeout_us());
  // Before the method is looked up, so a caller who may not call learns nothing of which exist.
  if (core_.options.authorize) {
    const CallContext call{client_id_, client_name_, *slot_,    request.method(),
                           peer_,      deadline,     principal_};
    if (Status allowed = core_.options.authorize(call); !allowed.ok()) {
      core_.unauthorized.fetch_add(1, std::memory_order_relaxed);
      FinishRequest(id, {std::move(allowed), {}});
      return;
    }
  }
  const auto it = core_.handlers.find(request.method());
  if (it == core_.handlers.end()) {
    FinishRequest(id,
                  {{Code::kUnknownMethod, "no handler for method '" + request.method() + "'"}, {}});
    return;
  }
  // Runs the handler unless the caller has already given up waiting.
  auto run = [self = shared_from_this(), handler = &it->second.fn, slot = *slot_, deadline,
              method = std::move(*request.mutable_method()),
              payload = std::move(*request.mutable_payload())](bool may_wait) -> Reply {
    if (Clock::now() >= deadline)
      return {{Code::kDeadlineExceeded, "deadline passed before the handler ran"}, {}};
    const CallContext call{self->client_id_, self->client_name_, slot,    method, self->peer_,
                           deadline,         self->principal_,   may_wait};
    Reply reply;
    const Clock::time_point began = Clock::now();
    try {
      reply = (*handler)(call, payload);
    } catch (const std::exception& e) {
      internal::Log(LogLevel::kError, "handler for '{}' threw: {}", method, e.what());
      reply = {{Code::kInternal, std::string("handler threw: ") + e.what()}, {}};
    }
    if (reply.status.code() == Code::kWouldWait) {
      if (!may_wait) return reply;  // Not an answer: the worker's run is.
      internal::Log(LogLevel::kError, "handler for '{}' answered WOULD_WAIT on a worker", method);
      reply = {{Code::kInternal, "the handler asked for a worker while running on one"}, {}};
    }
    if (const auto& done = self->core_.options.on_call_done) {
      done(method, Clock::now() - began, reply.status);
    }
    return reply;
  };
  if (it->second.dispatch == Dispatch::kInline) {
    Reply reply = run(/*may_wait=*/false);
    if (reply.status.code() != Code::kWouldWait) {
      FinishRequest(id, std::move(reply));
      return;
    }
  }
  asio::post(core_.workers, [self = shared_from_this(), id, run = std::move(run)]() mutable {
    Reply reply = run(/*may_wait=*/true);
    asio::post(self->strand_, [self, id, reply = std::move(reply)]() mutable {
      self->FinishRequest(id, std::move(reply));
    });
  });
}

void ServerSession::AnswerPing(uint64_t id) {
  if (pong_queued_) return;  // The Pong on its way answers this one too.
  pong_queued_ = true;
  core_.pings.fetch_add(1, std::memory_order_relaxed);
  Frame frame;
  wire::Pong* pong = frame.mutable_pong();
  pong->set_id(id);
  pong->set_state(ToWire(core_.state.load()));
  Send(frame);
}

void ServerSession::ArmIdleTimer() {
  const std::chrono::milliseconds timeout = core_.options.idle_timeout;
  if (timeout.count() <= 0) {
    ArmTimer(timeout, "idle");
    return;
  }
  // As ArmTimer, from the idle period's start: a ping between requests must not extend it.
  read_timeout_ = timeout;
  read_timeout_what_ = "idle";
  read_deadline_ = idle_from_ + timeout;
  if (!read_wait_pending_) WaitForReadDeadline();
}

void ServerSession::FinishRequest(uint64_t id, Reply reply) {
  busy_ = false;
  idle_from_ = Clock::now();  // A fresh idle period from the answer.
  ArmIdleTimer();
  activity_->busy.store(false, std::memory_order_relaxed);
  const bool error = !reply.status.ok();
  if (!closed_) {
    wire::Response* response = reply_frame_.mutable_response();
    response->set_id(id);
    response->set_code(static_cast<wire::StatusCode>(reply.status.code()));
    if (error) {
      response->set_error_message(reply.status.message());
    } else {
      response->clear_error_message();
    }
    response->set_payload(std::move(reply.payload));
    const LoadReport load = core_.Load();
    wire::LoadReport* wire_load = response->mutable_load();
    wire_load->set_utilization(load.utilization);
    wire_load->set_requests_per_s(load.requests_per_s);
    wire_load->set_errors_per_s(load.errors_per_s);
    Send(reply_frame_);
    std::string().swap(*response->mutable_payload());  // The handler's string goes now.
  }
  core_.OnRequestFinished(error);
}

void ServerSession::ArmTimer(std::chrono::milliseconds timeout, const char* what) {
  if (timeout.count() <= 0) {
    read_deadline_ = Clock::time_point::max();  // A pending wait wakes, finds nothing, stops.
    return;
  }
  read_timeout_ = timeout;
  read_timeout_what_ = what;
  read_deadline_ = Clock::now() + timeout;
  if (!read_wait_pending_) WaitForReadDeadline();
}

void ServerSession::WaitForReadDeadline() {
  std::chrono::milliseconds horizon = core_.options.idle_timeout;
  const std::chrono::milliseconds frame = core_.options.frame_timeout;
  if (horizon.count() <= 0 || (frame.count() > 0 && frame < horizon)) horizon = frame;
  if (horizon.count() <= 0) horizon = read_timeout_;
  read_wait_pending_ = true;
  const uint64_t generation = ++read_wait_generation_;
  read_timer_.expires_at(std::min(read_deadline_, Clock::now() + horizon));
  read_timer_.async_wait([self = shared_from_this(), generation](const asio::error_code& ec) {
    self->OnReadTimer(ec, generation);
  });
}

void ServerSession::OnReadTimer(const asio::error_code& ec, uint64_t generation) {
  if (generation != read_wait_generation_) return;  // A later wait took over.
  read_wait_pending_ = false;
  if (ec || closed_ || read_deadline_ == Clock::time_point::max()) return;
  const Clock::time_point now = Clock::now();
  if (busy_) {
    // A handler is still working: that is not the peer's silence. A fresh period from now.
    read_deadline_ = now + read_timeout_;
    WaitForReadDeadline();
    return;
  }
  if (now < read_deadline_) {  // Re-armed since this wait began: wait for the newer deadline.
    WaitForReadDeadline();
    return;
  }
  core_.timeouts.fetch_add(1, std::memory_order_relaxed);
  internal::Log(LogLevel::kInfo, "closing connection from {}: {} for {} ms", peer_,
                read_timeout_what_, read_timeout_.count());
  CloseNow(Status::Ok());
}

void ServerSession::Send(const Frame& frame) {
  outbox_.Append(frame);
  WriteNext();
}

void ServerSession::WriteNext() {
  if (outbox_.empty()) {
    pong_queued_ = false;
    if (close_after_sending_) CloseNow(*close_after_sending_);
  }
  if (closed_) return;
  const std::string* batch = outbox_.StartBatch();
  if (!batch) return;  // Being written, or nothing queued.
  transport_.AsyncWrite(asio::buffer(*batch),
                        [self = shared_from_this()](const asio::error_code& ec, size_t) {
                          self->outbox_.FinishBatch();
                          if (ec) {
                            self->CloseNow(self->close_after_sending_.value_or(Status::Ok()));
                            return;
                          }
                          self->WriteNext();
                        });
}

void ServerSession::CloseAfterSending(const Status& why) {
  if (closed_) return;
  close_after_sending_ = why;
  if (outbox_.empty()) {
    CloseNow(why);
    return;
  }
  handshake_timer_.expires_after(core_.options.handshake_timeout);
  handshake_timer_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
    if (!ec && !self->closed_) self->CloseNow(*self->close_after_sending_);
  });
}

void ServerSession::CloseNow(const Status& why) {
  if (closed_) return;
  closed_ = true;
  if (why.code() == Code::kProtocolError) {
    // Logged before counted: whoever sees the counter move can rely on the line being there.
    internal::Log(LogLevel::kWarning, "closing connection from {}{}: {}", peer_,
                  slot_ ? " (slot " + std::to_string(*slot_) + ")" : std::string(), why.message());
    core_.protocol_errors.fetch_add(1, std::memory_order_release);
  }
  handshake_timer_.cancel();
  read_timer_.cancel();
  transport_.Close();
  if (slot_) {
    core_.slots.Release(*slot_);
    slot_.reset();
  }
  core_.RemoveSession(this);
}

}  // namespace railyard::rpc::internal
