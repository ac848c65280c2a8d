// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to core/rpc: one accepted Boxcar connection on the server side.

#include <array>
#include <asio.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "core/rpc/frame_io.h"
#include "core/rpc/frame_outbox.h"
#include "core/rpc/server_core.h"
#include "core/rpc/transport.h"
#include "railyard/rpc.pb.h"

namespace railyard::rpc::internal {

// Reads frames for as long as the connection lives (so a peer that goes away frees its slot at
// once, even mid-request), runs at most one request at a time, and writes responses and pushed
// state changes through one queue.
//
// Thread safety: public methods may be called from any thread; all state lives on the strand.
class ServerSession : public std::enable_shared_from_this<ServerSession> {
 public:
  // REQUIRES: `socket` was accepted with its own strand of core.io as executor. Speaks TLS when
  // core.tls_context is set.
  ServerSession(ServerCore& core, asio::ip::tcp::socket socket);
  ~ServerSession();

  void Start();
  void PushState(ServerState state);
  void Close();

 private:
  asio::awaitable<void> Run();
  Status Handshake(const Frame& frame);
  void StartRequest(wire::Request& request);
  void AnswerPing(uint64_t id);
  // Arms the idle timeout from idle_from_.
  void ArmIdleTimer();
  void FinishRequest(uint64_t id, Reply reply);
  void Send(const Frame& frame);
  void WriteNext();
  void CloseNow(const Status& why);
  // Closes once everything queued has been written, so the peer can read why (a refusal in the
  // welcome): closing at once may discard a write still under way. A peer that does not read is
  // closed after the handshake timeout.
  void CloseAfterSending(const Status& why);
  // Closes the connection if `timeout` passes before the next ArmTimer (0: disarms). Costs one
  // clock read: the asio wait is only started when none is pending (see WaitForReadDeadline).
  void ArmTimer(std::chrono::milliseconds timeout, const char* what);
  // Starts the one pending wait, for read_deadline_ but never further off than the shortest read
  // timeout. So a deadline set later (always at least that far ahead) never needs the wait moved
  // earlier, and re-arming on every request schedules no timer at all.
  void WaitForReadDeadline();
  void OnReadTimer(const asio::error_code& ec, uint64_t generation);

  ServerCore& core_;
  asio::any_io_executor strand_;
  // The TLS context this connection was accepted with (null: plain); declared before transport_,
  // which uses it, so it outlives it even when a reload replaces the server's.
  std::shared_ptr<asio::ssl::context> tls_context_;
  Transport transport_;
  asio::steady_timer handshake_timer_;
  asio::steady_timer read_timer_;  // Idle between requests, then frame completion.
  std::chrono::steady_clock::time_point read_deadline_ =
      std::chrono::steady_clock::time_point::max();  // max: disarmed.
  std::chrono::milliseconds read_timeout_{0};
  const char* read_timeout_what_ = "";
  bool read_wait_pending_ = false;
  // Bumped by every wait started. A wait that had already expired when it was superseded still
  // runs its handler (cancel cannot recall it), so a handler acts only for the latest wait.
  uint64_t read_wait_generation_ = 0;
  std::string peer_;

  std::optional<uint32_t> slot_;
  uint64_t client_id_ = 0;
  std::string client_name_;
  std::string principal_;  // ServerOptions::authenticate's, at the handshake.
  std::shared_ptr<SlotActivity> activity_ = std::make_shared<SlotActivity>();
  bool busy_ = false;
  bool closed_ = false;
  bool refused_ = false;                       // The welcome carries a refusal.
  std::optional<Status> close_after_sending_;  // Set by CloseAfterSending.
  // The client was told "lame duck" in its welcome and not "serving" since, so it sends a request
  // here knowingly: that one is bounced. After a push it may not have read yet, requests execute.
  bool client_knows_lame_duck_ = false;
  // Start of the current idle period (handshake or last answer); a ping does not end it.
  std::chrono::steady_clock::time_point idle_from_ = std::chrono::steady_clock::now();

  FrameReadBuffers read_buffers_;
  FrameOutbox outbox_;
  // Reused for every response, so its messages are not allocated again each time.
  Frame reply_frame_;
  // A pong is in outbox_ (cleared when the outbox drains). A client has one ping out at a time,
  // so further pings meanwhile come only from a peer that does not read: they are dropped, which
  // bounds what it can make us queue.
  bool pong_queued_ = false;
};

}  // namespace railyard::rpc::internal
