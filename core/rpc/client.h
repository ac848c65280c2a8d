// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/balance/policy.h"
#include "core/balance/retry_budget.h"
#include "core/balance/subsetting.h"
#include "core/rpc/endpoint.h"
#include "core/rpc/frame_limits.h"
#include "core/rpc/io_engine.h"
#include "core/rpc/io_threads.h"
#include "core/rpc/status.h"
#include "core/rpc/tls.h"

namespace railyard::rpc {

// Chooses the connection for each attempt (core/rpc/selection_policy.h, not installed: custom
// policies are Railyard's own); a client holds one through ClientOptions::policy.
class SelectionPolicy;
// Boxcar's stateless lowest-slot rule without flow control or telemetry: the fastest path, for
// ClientOptions::policy.
std::shared_ptr<SelectionPolicy> LowestSlotFastPathPolicy();

struct ClientOptions {
  // Host names or IP addresses; names are resolved when first connected to (see Client).
  std::vector<Endpoint> servers;
  size_t pool_size = 32;
  // Extra attempts after a retryable failure (transport error, LAME_DUCK, UNAVAILABLE, BEHIND).
  int max_retries = 2;
  std::chrono::milliseconds default_timeout{5000};
  // Bounds resolving a server's name (the first time) and, separately, each connect + handshake.
  std::chrono::milliseconds connect_timeout{1000};
  // The acquirer sleeps a random time in [min, max] after a connection that did not improve a
  // full pool.
  std::chrono::milliseconds acquirer_sleep_min{10};
  std::chrono::milliseconds acquirer_sleep_max{50};
  // While probes keep failing to improve a full pool, that sleep doubles every few probes up to
  // this multiple, so a settled client stops churning connections on its servers (1: never). A
  // pool that loses a member cuts that backoff short.
  uint32_t acquirer_backoff_limit = 8;
  // For a pool whose slots balance nothing (one server, or an admin service): probes up to 1024 x
  // acquirer_sleep_max apart once settled instead of a few a second. A loss still wakes it.
  static constexpr uint32_t kBackoffLimitWhereSlotsBalanceNothing = 1024;
  // Connection attempts that may run at once while the pool is short of capacity (one when full:
  // the spare acquirers sleep until the pool loses a member), so a pool that lost a server
  // refills in one round trip rather than one per connection.
  size_t refill_parallelism = 4;
  // How long to leave a server alone after it said it is draining.
  std::chrono::milliseconds lame_duck_avoid{1000};
  // A pooled connection that has heard nothing from its server for this long, with no request
  // out, pings it; no answer within connect_timeout disposes of it (0: no health checks). So an
  // idle client learns of a lame duck or a hung or vanished server before its next call.
  std::chrono::milliseconds health_check_interval{1000};
  // A pooled connection that has carried no request for inactive_after is inactive (the SRE
  // chapter's cheap mode for connections idle a long time) and is checked every
  // inactive_health_check_interval instead (inactive_after 0: never). A settled client sends
  // nearly every call on its lowest slot, so most of its pool is inactive, and a fleet's pings
  // would otherwise grow with its clients times their pools. The cost: a server that hangs or
  // vanishes behind an inactive connection is found up to that interval later. A server's lame
  // duck reaches every connection at once regardless (pushed).
  std::chrono::milliseconds inactive_after{30000};
  std::chrono::milliseconds inactive_health_check_interval{10000};
  uint64_t client_id = 0;  // 0: a random id, stable for this Client's life.
  // This client's position (0, 1, 2, ...) among the clients that share its server list, which
  // deterministic subsetting needs to spread them evenly (the SRE chapter's consecutive client
  // tasks). Unset: an explicit client_id serves as the index; with neither, Start refuses
  // deterministic subsetting, since a random id would silently give random, uneven subsets.
  std::optional<uint64_t> client_index;
  std::string client_name;
  std::string credentials;
  size_t io_threads = 1;
  // Set: the client runs on these threads, shared with other clients, and starts none of its own
  // (io_threads does not apply); its Stop waits until its work on them has ended.
  std::shared_ptr<IoThreads> io;
  // What plain connections do their reads and writes on (io_engine.h). Where io_uring was meant
  // but the kernel refused it, the first client of the process logs why.
  IoEngine io_engine = IoEngine::kAuto;
  uint32_t max_frame_bytes = kDefaultMaxFrameBytes;
  // null (and no `balance`): balance::PolicyKind::kLowestSlot with flow control and telemetry.
  // Its flow control lets one server have at most half the pool in flight (16 for the default 32,
  // never fewer than 16), so a server whose requests pile up cannot tie up more than half of a
  // full pool and the rest goes to the others, while a pool spread over three or more servers
  // (about 11 connections each) stays under the limit in normal operation. A client made with one
  // server (or none) has nowhere to divert to: its limit is the pool (a server added later keeps
  // that). `balance` uses its own max_active_per_backend (100 unless set).
  // LowestSlotFastPathPolicy() is the stateless fast path, for callers who want neither.
  std::shared_ptr<SelectionPolicy> policy;
  uint64_t seed = 0;  // For the acquirer's choices; 0: random.
  // Set: servers are chosen by this core/balance policy (through BalancedSelection), and `policy`
  // is ignored. Unset: `policy`, or Boxcar's lowest slot from core/balance.
  std::optional<balance::PolicyOptions> balance;
  // Which servers the acquirer connects to at all (core/balance/subsetting.h), computed from
  // client_index (unset: the client id) over the servers not removed, and recomputed when
  // servers are added or removed. While a member of the subset is down (its
  // connects keep failing), the acquirer also connects to one replacement outside the subset,
  // and drops it once the member accepts a connection again (core/rpc/subset_membership.h).
  balance::SubsetMode subset_mode = balance::SubsetMode::kNone;
  size_t subset_size = 0;  // 0: every server.
  // Retries across the client, bounded to a fraction of recent calls (each call is still bounded
  // by max_retries); nullopt: max_retries alone.
  std::optional<balance::RetryBudget::Options> retry_budget = balance::RetryBudget::Options{};
  // Set: every connection speaks TLS (handshake within connect_timeout, before the hello).
  std::optional<TlsClientOptions> tls;
};

struct CallResult {
  Status status;
  std::string payload;
  int attempts = 0;
  std::optional<uint32_t> server;  // Index into the server list of the one that answered.
};

// Runs on one of the client's I/O threads: must not block.
using CallCallback = std::function<void(CallResult&& result)>;

struct PoolEntrySnapshot {
  uint32_t server = 0;
  std::string server_address;
  uint32_t slot = 0;
  bool busy = false;
  uint64_t requests = 0;
};

struct ClientCounters {
  uint64_t requests = 0;      // Calls started.
  uint64_t retries = 0;       // Attempts after the first.
  uint64_t rejections = 0;    // Calls refused at once with POOL_EXHAUSTED.
  uint64_t replacements = 0;  // Pool members displaced by a better slot.
  uint64_t failures = 0;      // Calls that failed (base::IsFailure), rejections apart.
  uint64_t connects = 0;      // Handshakes completed by the acquirer.
  uint64_t connect_failures = 0;
  uint64_t retries_refused = 0;  // Retries the retry budget did not allow.
};

// What a client saw of its own calls lately, counted as a server's Throughput counts what it
// serves (base::MethodStats): rates decay with a one-second time constant and latencies cover
// about the last minute, so both sides of a call read alike.
struct ClientThroughput {
  double requests_per_s = 0;    // Calls not rejected: sent, or failed before a server answered.
  double errors_per_s = 0;      // Of those, failures (base::IsFailure: NOT_FOUND is an answer).
  double rejections_per_s = 0;  // Calls refused at once with POOL_EXHAUSTED, never sent.
  double retries_per_s = 0;     // Attempts after a call's first.
  // Client-seen latency of the calls not rejected, from AsyncCall to the answer (every retry
  // included), in microseconds.
  double p50_us = 0;
  double p99_us = 0;
  double max_us = 0;
};

struct PoolSnapshot {
  uint64_t client_id = 0;
  size_t capacity = 0;
  std::vector<PoolEntrySnapshot> entries;  // In slot order, best first.
  ClientCounters counters;
  ClientThroughput throughput;
  std::string policy;                                // The selection policy's name.
  std::optional<balance::Explanation> policy_state;  // Backend ids are server indices.
  std::vector<std::string> server_addresses;         // Every server, by index.
  balance::SubsetMode subset_mode = balance::SubsetMode::kNone;
  std::vector<uint32_t> subset;  // Server indices of this client's subset.
  // Servers outside the subset standing in for a member that is down; the acquirer connects to
  // the subset's members and these.
  std::vector<uint32_t> replacements;
  // Why the latest failed connection attempt failed (e.g. a TLS refusal); empty if none failed.
  std::string last_connect_failure;
};

// A Boxcar client: a fixed-size pool of connections over a server list, kept in server-slot order
// by a background acquirer. Each call takes the connection its SelectionPolicy picks (by default
// the idle one with the lowest slot); with none idle it fails at once with POOL_EXHAUSTED. A
// retryable failure disposes of the connection and retries on the next best one, bounded by
// max_retries, the client-wide retry budget and the call's deadline; application errors are
// returned as they are. ClientOptions::balance swaps the lowest-slot rule for a core/balance
// policy, and subsetting limits which servers the pool connects to at all.
//
// Server states: a server that says it is starting gets one held connection and no request until
// it says serving, when that connection joins the pool. One that says lame duck (pushed, or in
// answer to an idle connection's health-check ping) is left for lame_duck_avoid; its connections
// leave the pool, busy ones once their request is answered. Make before break: while the pool
// holds no connection to another server that is not draining, they stay, and calls go on over
// them (a lame duck still runs requests on connections opened before it), until the acquirer
// pools a replacement or lame_duck_avoid has passed; so a drain never empties a pool while
// another server serves, and a client with nowhere else to go holds a drain up for no longer.
// Kept connections rank behind every other in the pool, so a replacement with any slot is taken.
//
// Name resolution: neither the constructor nor AddServer looks a name up, so neither blocks on
// DNS (an IP address needs no lookup). The acquirer resolves a server's host (asio's async_resolve,
// whose system lookup runs on asio's own resolver thread) before its first connect to that server,
// waiting at most connect_timeout; the first address found is kept for the client's life. A name
// that does not resolve (or not in time) counts as a failed connect:
// Snapshot().last_connect_failure names the host and the resolver's error, and the server is tried
// again after the usual backoff. Lookups share that one resolver thread, so a slow name delays the
// others' lookups (each still bounded for the acquirer by connect_timeout), and ~Client waits for a
// system lookup under way to return.
//
// Thread safety: every method may be called from any thread. Callbacks run on the client's I/O
// threads.
class Client {
 public:
  // Never blocks: it resolves no names (see above).
  explicit Client(ClientOptions options);
  ~Client();  // Stop()s.
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Checks the options (and loads the TLS files, naming any that is unusable) and starts the I/O
  // threads and the acquirer.
  Status Start();
  // Closes every connection; calls in flight complete with CANCELLED. Idempotent. On shared I/O
  // threads (ClientOptions::io) it also waits, at most a few seconds past connect_timeout, until
  // nothing of this client's is left on them; must not be called on one of them.
  void Stop();

  // timeout 0: options.default_timeout.
  void AsyncCall(std::string method, std::string payload, CallCallback done,
                 std::chrono::milliseconds timeout = {});
  CallResult Call(std::string method, std::string payload, std::chrono::milliseconds timeout = {});

  // Adds a server to the list the acquirer connects to; returns its index. Never blocks on DNS.
  uint32_t AddServer(Endpoint server);
  // Takes server `index` (as AddServer returned, or its position in ClientOptions::servers) out
  // of the list, draining it: no new attempt picks it, calls in flight on it finish normally, and
  // each of its pooled connections closes as soon as it is idle. Its index is never reused; the
  // subset is recomputed over the servers left. NOT_FOUND for an unknown or removed index.
  Status RemoveServer(uint32_t index);

  // Waits until the pool holds at least `connections` members; false on timeout.
  bool WaitForPool(size_t connections, std::chrono::milliseconds timeout) const;
  // The same, but also gives up (false) as soon as the client has counted more connect failures
  // than `connect_failures_before` (PoolCounters::connect_failures; 0 for a client just
  // started): a caller asking "does this server answer?" then hears of a refused connection at
  // once instead of waiting out the reconnect backoff until `timeout`.
  bool WaitForPoolOrConnectFailure(size_t connections, std::chrono::milliseconds timeout,
                                   uint64_t connect_failures_before) const;
  // The same, but also gives up (false) as soon as every server it would connect to refused its
  // latest connection in a way that retrying cannot fix as client and server are set up: a TLS
  // handshake refused (a certificate required or not trusted), a server that speaks TLS to a
  // plain client, HTTP or another protocol. A server that is down or slow keeps it waiting, as it
  // may come up. Snapshot().last_connect_failure says why.
  bool WaitForPoolUnlessRefused(size_t connections, std::chrono::milliseconds timeout) const;
  PoolSnapshot Snapshot() const;
  uint64_t client_id() const;
  // What plain connections run on since Start: kIoUring or kEpoll (never kAuto; kEpoll before
  // Start and with TLS).
  IoEngine io_engine() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace railyard::rpc
