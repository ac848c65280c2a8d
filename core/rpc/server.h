// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/load_report.h"
#include "core/rpc/endpoint.h"
#include "core/rpc/frame_limits.h"
#include "core/rpc/io_engine.h"
#include "core/rpc/slot_info.h"
#include "core/rpc/status.h"
#include "core/rpc/tls.h"

namespace railyard::rpc {

using base::LoadReport;

struct CallContext;

// What a server learns of a client from its hello, for ServerOptions::authenticate.
struct HelloInfo {
  std::string_view client_name;
  std::string_view peer;
  std::string_view credentials;  // The client's ClientOptions::credentials; empty if none.
};

// ServerOptions::worker_threads when 0: enough for handlers that wait for the disk. On a 2-core
// machine every hand-off then wakes a sleeping worker; docs/benchmarks.md ("The docservice against
// Redis") measures what that costs.
inline constexpr size_t kDefaultWorkerThreads = 16;

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;      // 0: the OS chooses; read it back with Server::port().
  std::string name;       // Shown to clients in the handshake and in logs.
  size_t io_threads = 0;  // 0: one per core the process may use (base::UsableCores()).
  // What plain connections do their reads and writes on (io_engine.h); Start's log line says
  // which one runs, and io_engine() tells.
  IoEngine io_engine = IoEngine::kAuto;
  // For kWorkerPool handlers; 0: kDefaultWorkerThreads. Also the capacity that
  // LoadReport::utilization is relative to.
  size_t worker_threads = 0;
  uint32_t max_frame_bytes = kDefaultMaxFrameBytes;
  std::chrono::milliseconds handshake_timeout{5000};
  // A connection with no request for this long is closed (0: never); a Boxcar client replaces
  // it. Time a request spends in a handler does not count.
  std::chrono::milliseconds idle_timeout{std::chrono::minutes(10)};
  // A frame must arrive whole within this long of its header, so a peer trickling bytes cannot
  // hold a connection (0: no limit).
  std::chrono::milliseconds frame_timeout{10000};
  // Connections beyond this many are refused with a welcome that says why, then closed.
  size_t max_connections = 4096;
  // Set: the listener speaks only TLS; the TLS handshake comes before the Boxcar hello and
  // counts within handshake_timeout.
  std::optional<TlsServerOptions> tls;
  // false: Start() listens and handshakes in the starting state, so clients connect (and hold a
  // slot) while the program initialises but send nothing until MarkServing(). Handlers may still
  // be registered until then.
  bool serve_on_start = true;
  // Who a connection's client is, from its hello: the principal every call on that connection
  // carries (CallContext::principal; empty: anonymous). Runs on the connection's I/O thread at
  // its handshake; must be quick. Unset: every client is anonymous.
  std::function<std::string(const HelloInfo&)> authenticate;
  // Whether a call may run: a non-OK status (UNAUTHENTICATED with the reason) answers it without
  // reaching its handler, and is counted (ServerCounters::unauthorized). Runs on the I/O thread
  // before each request; must be quick and never block. Unset: every call may run.
  std::function<Status(const CallContext& call)> authorize;
  // Told of every call a handler answered (not of those answered before one ran: unknown
  // methods, authorize's refusals, lame duck, starting, a deadline already past), with the
  // handler's own time (docs/figures.md's server latency: a worker's queue is not in it) and its
  // status: how a process keeps per-method figures of its own (node::ServiceAdmin does). Runs on
  // the thread that ran the handler, after it; must be quick, never block and never throw.
  // Unset: nothing is told.
  std::function<void(std::string_view method, std::chrono::nanoseconds elapsed,
                     const Status& status)>
      on_call_done;
};

// How long a draining server waits, with nothing in flight, for a request sent before its client
// heard of the lame duck: a few round trips on a LAN, and short enough that a drain ends in about
// a second rather than after the whole grace.
inline constexpr std::chrono::milliseconds kDefaultDrainQuiet{500};

// What a handler knows about the call it serves.
struct CallContext {
  uint64_t client_id = 0;
  std::string_view client_name;
  uint32_t slot = 0;
  std::string_view method;
  std::string_view peer;
  // steady_clock::time_point::max() when the caller set no deadline.
  std::chrono::steady_clock::time_point deadline;
  std::string_view
      principal;  // ServerOptions::authenticate's word on the client; empty: anonymous.
  // False while a Dispatch::kInline handler runs on an I/O thread: it must not wait (for another
  // thread, a sync to disk, a lock held long), and answers WouldWait() to run again on a worker,
  // where this is true.
  bool may_wait = true;
};

// What a handler answers, when CallContext::may_wait is false, to be run again on a worker
// thread. Nothing of it reaches the client; a handler must not have changed anything before.
inline Status WouldWait() { return {Code::kWouldWait, "the handler needs a worker thread"}; }

struct Reply {
  Status status;
  std::string payload;
};

using Handler = std::function<Reply(const CallContext& call, std::string_view payload)>;

enum class Dispatch {
  kWorkerPool,  // Runs on the server's worker threads; may block (disk, locks, sleeps).
  // Runs on the connection's I/O thread, which saves waking a worker and coming back (most of a
  // small call's cost: docs/benchmarks.md); must be quick. A call that would have to wait answers
  // WouldWait() and runs again on a worker, with CallContext::may_wait true.
  kInline,
};

enum class ServerState { kStarting, kServing, kLameDuck, kStopped };
std::string_view ServerStateName(ServerState state);

struct ServerCounters {
  uint64_t connections_accepted = 0;
  uint64_t requests = 0;
  uint64_t errors = 0;               // Responses with a non-OK status.
  uint64_t protocol_errors = 0;      // Connections closed for bad frames.
  uint64_t connections_refused = 0;  // Over max_connections.
  uint64_t timeouts = 0;             // Connections closed as silent, idle or too slow.
  uint64_t tls_handshake_failures = 0;
  uint64_t unauthorized = 0;  // Calls ServerOptions::authorize refused.
  // Calls answered without reaching a handler because of the server's state: LAME_DUCK to a client
  // that knew, UNAVAILABLE while starting. Counted in `errors` too.
  uint64_t refused = 0;
  uint64_t pings = 0;  // Clients' health checks answered (not requests).
};

// A Boxcar server: hands each new connection its lowest free slot and dispatches requests to
// handlers registered by method name. One request at a time per connection.
//
// Starting (ServerOptions::serve_on_start false): handshakes say "starting"; Boxcar clients keep
// the connection and send nothing on it until MarkServing() pushes "serving". A request that comes
// anyway is answered UNAVAILABLE (retryable) without reaching a handler.
//
// Lame duck (the SRE chapter's): EnterLameDuck() pushes the new state to every client at once.
// Requests keep executing normally: those in flight, and those a client sent before it heard of
// the lame duck. Only a connection whose handshake already said "lame duck" (so its client knew)
// has new requests answered with LAME_DUCK (clients retry elsewhere).
//
// Thread safety: RegisterHandler before Start (or, with serve_on_start false, before
// MarkServing); everything else from any thread.
class Server {
 public:
  explicit Server(ServerOptions options);
  ~Server();  // Stop()s.
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // REQUIRES: Start() not called yet, or serve_on_start is false and MarkServing() not called yet.
  void RegisterHandler(std::string method, Handler handler,
                       Dispatch dispatch = Dispatch::kWorkerPool);

  // Binds, listens and starts serving. Fails with a clear message if the address is unusable or
  // a TLS file cannot be used (the message names the file).
  Status Start();
  uint16_t port() const;
  // What plain connections run on since Start: kIoUring or kEpoll (never kAuto).
  IoEngine io_engine() const;
  Endpoint endpoint() const;
  const std::string& name() const;

  // Starting -> serving, told to every client. After EnterLameDuck it only makes the handlers
  // ready, so that LeaveLameDuck serves. No-op once stopped.
  void MarkServing();
  // From serving (or starting); pushed to every client.
  void EnterLameDuck();
  // Back to serving (or to starting, if MarkServing has not been called yet).
  void LeaveLameDuck();
  // Reads the certificate, key and client CA files of ServerOptions::tls again (an operator
  // replaced them) for the connections accepted from now on; those open keep theirs. On an error
  // (naming the file) the server keeps what it had. FAILED_PRECONDITION on a plain listener or
  // before Start.
  Status ReloadTls();
  ServerState state() const;

  // Enters lame duck, then stops after `grace`, or as soon as nothing is in flight and no request
  // has arrived for `quiet` (every client has heard and gone elsewhere), whichever comes first.
  void Shutdown(std::chrono::milliseconds grace,
                std::chrono::milliseconds quiet = kDefaultDrainQuiet);
  // Closes every connection now. Idempotent.
  void Stop();

  std::vector<SlotInfo> SlotSnapshot() const;
  size_t in_flight() const;
  ServerCounters counters() const;
  LoadReport CurrentLoad() const;
  // ServerCounters::refused as a rate (1 s time constant, as the load's rates): a server's
  // "rejections" in its telemetry (docs/figures.md).
  double RefusalsPerSecond() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace railyard::rpc
