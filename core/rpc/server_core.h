// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to core/rpc: state shared by rpc::Server and its connections.

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/base/decaying_rate.h"
#include "core/base/mutex.h"
#include "core/rpc/server.h"
#include "core/rpc/slot_table.h"

namespace railyard::rpc::internal {

class ServerSession;

struct HandlerEntry {
  Handler fn;
  Dispatch dispatch;
};

struct ServerCore {
  explicit ServerCore(ServerOptions opts);

  // Everything a finished request changes, in one place so that no path forgets a part.
  void OnRequestFinished(bool error);
  // A request answered without reaching a handler because of the server's state (LAME_DUCK to a
  // client that knew, UNAVAILABLE while starting): what the balancer takes as a rejection.
  void OnRefused();
  LoadReport Load() const;

  void AddSession(const std::shared_ptr<ServerSession>& session) RAILYARD_EXCLUDES(sessions_mu_);
  void RemoveSession(ServerSession* session) RAILYARD_EXCLUDES(sessions_mu_);
  // Live sessions, for lame duck pushes and Stop.
  std::vector<std::shared_ptr<ServerSession>> Sessions() RAILYARD_EXCLUDES(sessions_mu_);

  const ServerOptions options;
  std::unordered_map<std::string, HandlerEntry> handlers;  // Frozen once started.
  SlotTable slots;
  std::atomic<ServerState> state{ServerState::kStarting};
  // Set once handlers are frozen (Start with serve_on_start, else MarkServing); until then a
  // request never looks at `handlers`, which may still be growing.
  std::atomic<bool> handlers_ready{false};
  // Plain connections on io_uring (ServerOptions::io_engine), decided by Start before the first
  // accept.
  std::atomic<bool> uring{false};
  // When the latest request arrived (steady clock, ns since its epoch): a drain ends after a
  // quiet period without one.
  std::atomic<int64_t> last_request_ns{0};

  std::atomic<size_t> in_flight{0};
  std::atomic<uint64_t> connections_accepted{0};
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> errors{0};
  std::atomic<uint64_t> protocol_errors{0};
  std::atomic<uint64_t> connections_refused{0};
  std::atomic<uint64_t> timeouts{0};
  std::atomic<uint64_t> tls_handshake_failures{0};
  std::atomic<uint64_t> unauthorized{0};
  std::atomic<uint64_t> refused{0};
  std::atomic<uint64_t> pings{0};
  base::DecayingRate request_rate;
  base::DecayingRate error_rate;
  base::DecayingRate refusal_rate;

  // Signalled when in_flight drops to zero or the server stops.
  std::mutex idle_mu;
  std::condition_variable idle_cv;

  size_t session_count() RAILYARD_EXCLUDES(sessions_mu_);

  // The TLS context new connections take; null for a plain listener. Server::Start sets it and
  // Server::ReloadTls replaces it; a connection keeps the one it was accepted with.
  std::shared_ptr<asio::ssl::context> TlsContext() const RAILYARD_EXCLUDES(tls_mu_);
  void SetTlsContext(std::shared_ptr<asio::ssl::context> context) RAILYARD_EXCLUDES(tls_mu_);

 private:
  mutable base::Mutex tls_mu_;
  std::shared_ptr<asio::ssl::context> tls_context_ RAILYARD_GUARDED_BY(tls_mu_);
  base::Mutex sessions_mu_;
  std::unordered_map<ServerSession*, std::weak_ptr<ServerSession>> sessions_
      RAILYARD_GUARDED_BY(sessions_mu_);

 public:
  // Declared last so they are destroyed first: handlers still queued in them may hold sessions,
  // whose destructors touch the members above.
  asio::io_context io;
  asio::thread_pool workers;
};

}  // namespace railyard::rpc::internal
