// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to core/rpc: one pooled Boxcar connection on the client side.

#include <array>
#include <asio.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/balance/answer_health.h"
#include "core/rpc/frame.h"
#include "core/rpc/frame_io.h"
#include "core/rpc/frame_outbox.h"
#include "core/rpc/server.h"
#include "core/rpc/slot_pool.h"
#include "core/rpc/transport.h"
#include "railyard/rpc.pb.h"

namespace railyard::rpc::internal {

class ClientConnection;

// What a connection tells its owner. Called on the connection's strand.
class ConnectionObserver {
 public:
  virtual ~ConnectionObserver() = default;
  // The connection is closed and will carry no more requests.
  virtual void OnConnectionLost(const std::shared_ptr<ClientConnection>& connection) = 0;
  virtual void OnServerState(const std::shared_ptr<ClientConnection>& connection,
                             ServerState state) = 0;
};

// How a connection speaks TLS: `context` must outlive the connection; `server_name` is what the
// server's certificate must name (and the SNI sent).
struct ConnectionTls {
  asio::ssl::context* context = nullptr;  // null: plain TCP.
  std::string server_name;
  bool verify_peer = true;
};

// What waits for one request's outcome: the owner derives its per-call state from this, so that
// sending a request allocates no callback of its own. The connection owns it while the request is
// out and hands it back when the outcome is known (or drops it, if the connection goes first).
class PendingAttempt {
 public:
  virtual ~PendingAttempt() = default;
  // The outcome: status and, when a response arrived, the response itself (valid during the call
  // only; the owner may take its strings). Runs on `connection`'s strand, which stays alive for
  // the call; `self` is this object, owned by the callee from here on.
  virtual void OnAttemptDone(std::unique_ptr<PendingAttempt> self, ClientConnection& connection,
                             const Status& status, wire::Response* response) = 0;
};

// Connects and handshakes, then keeps reading for as long as it lives so that a dead server or a
// pushed state change is noticed even while the connection is idle. Carries one request at a time.
//
// Health checks: a connection that has heard nothing from its server for a health interval, and
// has no request out, sends a Ping; the Pong carries the server's state (a change reaches the
// observer as a push would), and no Pong within the health timeout fails the connection. So a
// server that hangs, or whose host vanished without closing the TCP connection, is found by an
// idle client before its next request rather than by that request's deadline. A ping is a few
// bytes answered on the server's I/O thread, only on connections that are otherwise silent.
// A connection that has carried no request for a while is inactive (the SRE chapter's cheap mode
// for long-idle connections) and is checked at a longer interval: a settled Boxcar client sends
// nearly every call on its lowest slot, so most of its pool is inactive.
//
// `uring`: a plain connection's reads and writes go through the io_context's io_uring
// (REQUIRES: UringOf(strand's context).available()).
//
// Thread safety: Send and Close from any thread; Open before anything else; everything else on
// the strand. The observer must outlive the connection's strand work: `owner_work`, if set, is
// released as the connection's last act (its owner waits for that before it goes).
class ClientConnection : public std::enable_shared_from_this<ClientConnection> {
 public:
  ClientConnection(asio::any_io_executor strand, uint32_t server, std::string server_address,
                   uint32_t max_frame_bytes, ConnectionObserver* observer,
                   const ConnectionTls& tls = {}, std::shared_ptr<void> owner_work = nullptr,
                   bool uring = false);

  // Connects to `target`, does the TLS handshake if any, says hello and reads the welcome, all
  // within `timeout`.
  asio::awaitable<Status> Open(asio::ip::tcp::endpoint target, const wire::Hello& hello,
                               std::chrono::milliseconds timeout);
  // When a silent connection pings its server (ClientOptions' fields of the same names).
  struct HealthChecks {
    std::chrono::milliseconds interval{0};        // 0: no health checks.
    std::chrono::milliseconds timeout{0};         // For the Pong; 0: no health checks.
    std::chrono::milliseconds inactive_after{0};  // 0: never inactive.
    std::chrono::milliseconds inactive_interval{0};
  };
  // Starts the read loop, and health checks as `checks` say. REQUIRES: Open succeeded.
  void StartReading(const HealthChecks& checks);
  // Sends one request; `done->OnAttemptDone` runs exactly once on the strand, never inside Send.
  // Called on the client's I/O thread (a callback issuing the next call), it writes at once; from
  // elsewhere it is queued to the strand. `method` and `payload` are read on the strand: they must
  // stay valid for as long as `done` lives (the Client keeps them in `done`, its call's state).
  void Send(uint64_t id, const std::string& method, const std::string& payload,
            std::chrono::steady_clock::time_point deadline, std::unique_ptr<PendingAttempt> done);
  void Close();

  const asio::any_io_executor& executor() const { return strand_; }
  uint32_t server() const { return server_; }
  const std::string& server_address() const { return server_address_; }
  uint32_t slot() const { return slot_; }
  ServerState server_state() const { return server_state_; }
  // After a failed Open: whether it failed in a way that retrying cannot fix while client and
  // server are set up as they are (a TLS handshake refused, a server that speaks TLS, HTTP or
  // another protocol, one that closes a plain connection at its hello), not a server that is down,
  // busy or slow.
  bool refused_as_configured() const { return refused_as_configured_; }
  // Set by the owner under its pool lock once the connection joins the pool.
  SlotPool::Handle handle = 0;
  // The owner's count of failing answers (a sinkhole); touched only by the attempt callback, and
  // the connection carries one request at a time.
  balance::AnswerHealth answers;

 private:
  asio::awaitable<void> ReadLoop();
  asio::awaitable<void> HealthLoop();
  void OnStateHeard(ServerState state);
  // Writes are queued: a ping may be going out when a request is sent.
  void Enqueue(const wire::Frame& frame);
  void WriteNext();
  // Keeps one timer wait at or before the pending request's deadline (see Send).
  void WatchDeadline();
  void OnDeadlineTimer(const asio::error_code& ec, uint64_t generation);
  void CompletePending(const Status& status, wire::Response* response);
  void Fail(const Status& why);

  // First, so destroyed last: once it goes the owner may go.
  std::shared_ptr<void> owner_work_;
  asio::any_io_executor strand_;
  Transport transport_;
  std::string tls_server_name_;
  bool tls_verify_peer_ = true;
  asio::steady_timer deadline_timer_;
  asio::steady_timer health_timer_;
  HealthChecks health_;
  std::chrono::steady_clock::time_point last_heard_;    // Any frame from the server.
  std::chrono::steady_clock::time_point last_request_;  // Sent, or the connection's start.
  bool health_sleeps_long_ = false;  // The health loop waits out an inactive interval.
  // The interval between checks now: longer once the connection is inactive.
  std::chrono::milliseconds HealthInterval(std::chrono::steady_clock::time_point now) const;
  std::optional<uint64_t> ping_outstanding_;
  uint64_t next_ping_id_ = 1;
  const uint32_t server_;
  const std::string server_address_;
  const uint32_t max_frame_bytes_;
  ConnectionObserver* observer_;

  uint32_t slot_ = 0;
  ServerState server_state_ = ServerState::kStarting;
  bool refused_as_configured_ = false;
  bool closed_ = false;
  std::optional<uint64_t> pending_id_;
  std::chrono::steady_clock::time_point pending_deadline_ =
      std::chrono::steady_clock::time_point::max();
  std::unique_ptr<PendingAttempt> pending_done_;
  bool deadline_wait_pending_ = false;
  // Bumped by every wait started: a superseded wait that had already expired still runs its
  // handler, which must then do nothing.
  uint64_t deadline_wait_generation_ = 0;

  FrameReadBuffers read_buffers_;
  std::string write_buffer_;  // The hello, written before the read loop starts.
  FrameOutbox outbox_;
  // Reused for every request, so its message and strings are not allocated again each time.
  wire::Frame request_frame_;
};

}  // namespace railyard::rpc::internal
