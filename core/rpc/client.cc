// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/client.h"

#include <algorithm>
#include <asio.hpp>
#include <future>
#include <limits>
#include <random>
#include <thread>

#include "core/base/decaying_rate.h"
#include "core/base/method_stats.h"
#include "core/base/mutex.h"
#include "core/base/random.h"
#include "core/rpc/balanced_selection.h"
#include "core/rpc/client_connection.h"
#include "core/rpc/failing_answer.h"
#include "core/rpc/logging.h"
#include "core/rpc/selection_policy.h"
#include "core/rpc/subset_membership.h"
#include "core/rpc/tls_context.h"
#include "core/rpc/uring_service.h"
#include "railyard/rpc.pb.h"

namespace railyard::rpc {

std::shared_ptr<SelectionPolicy> LowestSlotFastPathPolicy() {
  return std::make_shared<LowestSlotFastPath>();
}

using internal::ClientConnection;
using Clock = std::chrono::steady_clock;

namespace {

// Stream labels for base::MixSeed: each random consumer of a client gets its own stream.
constexpr uint64_t kTieBreakStream = 1;
constexpr uint64_t kAcquirerStream = 2;

// Failed connects in a row, with nothing pooled to it, after which a subset member counts as down
// and gets a replacement: two, so that one lost SYN does not churn a connection elsewhere.
constexpr int kFailedConnectsBeforeReplacing = 2;

// The default policy's flow control, sized from the pool (see ClientOptions::policy): with one
// request per connection a backend's active requests never exceed the client's connections to it,
// so balance's default of 100 could never bind on a pool of 32.
balance::PolicyOptions DefaultPolicyOptions(const ClientOptions& options) {
  balance::PolicyOptions policy;
  const size_t limit =
      options.servers.size() <= 1 ? options.pool_size : std::max<size_t>(16, options.pool_size / 2);
  policy.max_active_per_backend = static_cast<uint32_t>(std::max<size_t>(1, limit));
  return policy;
}

std::shared_ptr<SelectionPolicy> MakeSelection(const ClientOptions& options) {
  if (options.balance) return std::make_shared<BalancedSelection>(*options.balance);
  if (options.policy) return options.policy;
  // Boxcar's lowest slot through core/balance, so the default has flow control and explains
  // itself in telemetry like every other policy.
  return std::make_shared<BalancedSelection>(DefaultPolicyOptions(options));
}

uint64_t RandomNonZero() {
  std::random_device device;
  uint64_t value = 0;
  while (value == 0) value = (uint64_t{device()} << 32) ^ device();
  return value;
}

}  // namespace

struct Client::Impl final : internal::ConnectionObserver {
  struct ServerEntry {
    Endpoint endpoint;
    std::string address;
    // Resolved on an I/O thread before the first connect, then kept for the client's life.
    std::optional<asio::ip::tcp::endpoint> resolved;
    Clock::time_point avoid_until{};
    int consecutive_failures = 0;
    // Its latest connect failed as ClientConnection::refused_as_configured says.
    bool refused_as_configured = false;
    uint32_t tie_break = 0;  // This client's random preference among servers on equal slots.
    // A connection to a server that said it is starting: held (reading) but not pooled until the
    // server says it is serving. While it is held the acquirer does not probe that server.
    std::shared_ptr<ClientConnection> starting;
    // It said lame duck on a connection still pooled: make before break (OnServerState), for
    // at most lame_duck_avoid from lame_duck_since.
    bool lame_duck = false;
    Clock::time_point lame_duck_since{};
  };

  explicit Impl(ClientOptions opts)
      : options(std::move(opts)),
        policy(MakeSelection(options)),
        client_id(options.client_id ? options.client_id : RandomNonZero()),
        seed(options.seed ? options.seed : RandomNonZero()),
        pool(options.pool_size),
        membership(options.subset_mode, options.subset_size,
                   options.client_index.value_or(client_id), seed) {
    if (options.retry_budget) retry_budget.emplace(*options.retry_budget);
  }

  // --- Calls -------------------------------------------------------------------------------

  // One call, from AsyncCall to its callback: owned by whoever acts on it next (the connection
  // carrying its attempt, or the client between attempts), so an attempt allocates nothing.
  struct Call final : internal::PendingAttempt {
    Impl* client = nullptr;
    std::string method;
    std::string payload;
    CallCallback done;
    Clock::time_point started;
    Clock::time_point deadline;
    Clock::time_point attempt_started;
    int attempts = 0;
    Status last_failure;
    std::vector<uint32_t> failed_servers;  // Retries go elsewhere first.

    void OnAttemptDone(std::unique_ptr<PendingAttempt> self, ClientConnection& conn,
                       const Status& status, wire::Response* response) override {
      client->OnAttemptDone(std::unique_ptr<Call>(static_cast<Call*>(self.release())), conn, status,
                            response);
    }
  };

  void Attempt(std::unique_ptr<Call> call) {
    std::shared_ptr<ClientConnection> conn;
    Status refusal;
    {
      base::MutexLock lock(mu);
      if (call->attempts == 0) {  // Counted here to take the pool lock once per attempt.
        ++counters.requests;
        if (retry_budget) retry_budget->RecordRequest(BalanceNow());
      }
      if (const auto handle = policy->Pick(pool, call->failed_servers)) {
        conn = conns[*handle];
      } else if (call->attempts > 0) {
        refusal = {call->last_failure.code(),
                   call->last_failure.message() + "; no idle connection left to retry on"};
      } else if (pool.size() == 0) {
        refusal = {Code::kUnavailable, "no connection to any server (pool is empty)"};
      } else if (pool.idle_count() > 0) {
        ++counters.rejections;  // Flow control or a concurrency limit: fail fast, not queue.
        refusal = {Code::kPoolExhausted, "the " + std::string(policy->name()) +
                                             " policy refused: every server with an idle "
                                             "connection is at its active-request limit"};
      } else {
        ++counters.rejections;
        refusal = {Code::kPoolExhausted,
                   "all " + std::to_string(pool.size()) + " pooled connections are busy"};
      }
    }
    if (!conn) {
      const int attempts = call->attempts;
      Finish(std::move(call), {std::move(refusal), {}, attempts, std::nullopt});
      return;
    }
    Call& c = *call;
    ++c.attempts;
    c.attempt_started = Clock::now();
    const uint64_t id = next_request_id.fetch_add(1, std::memory_order_relaxed);
    conn->Send(id, c.method, c.payload, c.deadline, std::move(call));
  }

  // `conn` stays alive for the call (its strand's work holds it), even once out of conns.
  void OnAttemptDone(std::unique_ptr<Call> call, ClientConnection& conn, const Status& transport,
                     wire::Response* response) {
    Status status = transport;
    if (transport.ok()) {
      status = Status(static_cast<Code>(response->code()), response->error_message());
    }
    AttemptOutcome outcome{conn.server(), status.code(), Clock::now() - call->attempt_started,
                           std::nullopt};
    if (response && response->has_load()) {
      outcome.load = LoadReport{response->load().utilization(), response->load().requests_per_s(),
                                response->load().errors_per_s()};
    }
    policy->OnOutcome(outcome);

    const bool retryable = IsRetryable(status.code());
    // A connection whose request failed in transport or timed out cannot be trusted with another;
    // one to a replica that is only behind (BEHIND) is healthy and stays pooled.
    // Nor can one whose answers keep failing (a sinkhole, balance::AnswerHealth); the answer
    // itself still goes to the caller as it is.
    const bool sick = transport.ok() && conn.answers.Record(AnswerHealthResult(status.code()));
    const bool dispose = (retryable && status.code() != Code::kBehind) || !transport.ok() || sick;
    bool close_now = false;
    {
      base::MutexLock lock(mu);
      const SlotPool::Handle handle = conn.handle;
      const bool was_retired = pool.Release(handle);
      if (!was_retired && dispose && pool.Remove(handle)) WakeAcquirersLocked();
      if ((was_retired || dispose) && conns[handle].get() == &conn) {
        conns[handle].reset();
        close_now = true;
      }
      if (status.code() == Code::kLameDuck) AvoidLocked(conn.server(), options.lame_duck_avoid);
    }
    if (close_now) conn.Close();

    if (retryable && call->attempts <= options.max_retries && Clock::now() < call->deadline &&
        !stopping.load()) {
      bool allowed = true;
      {
        base::MutexLock lock(mu);
        allowed = !retry_budget || retry_budget->TryRetry(BalanceNow());
        ++(allowed ? counters.retries : counters.retries_refused);
      }
      if (allowed) {
        retry_rate.Add(Clock::now());
        call->last_failure = status;
        call->failed_servers.push_back(conn.server());
        Attempt(std::move(call));
        return;
      }
      status = Status(status.code(), status.message() + "; not retried: retry budget exhausted");
    }
    CallResult result{std::move(status), {}, call->attempts, conn.server()};
    if (response && result.status.ok()) {
      result.payload.swap(*response->mutable_payload());
      // The request's payload buffer, no longer needed, becomes the connection's for the next
      // response to parse into (instead of allocating one per response); a large one is not kept.
      if (call->payload.capacity() <= internal::FrameReadBuffers::kKeptBytes) {
        response->mutable_payload()->swap(call->payload);
      }
    }
    Finish(std::move(call), std::move(result));
  }

  void Finish(std::unique_ptr<Call> call, CallResult&& result) {
    const Code code = result.status.code();
    if (code == Code::kPoolExhausted && result.attempts == 0) {
      call_stats.RecordRejection();
    } else {
      call_stats.Record(call->method, Clock::now() - call->started, base::IsFailure(code));
      if (base::IsFailure(code)) {
        base::MutexLock lock(mu);
        ++counters.failures;
      }
    }
    // The call goes before its callback runs, which may well start the next one.
    CallCallback done = std::move(call->done);
    call.reset();
    done(std::move(result));
    if (calls_in_flight.fetch_sub(1) == 1) {
      base::MutexLock lock(mu);
      calls_cv.NotifyAll();
    }
  }

  // --- Connections -------------------------------------------------------------------------

  void OnConnectionLost(const std::shared_ptr<ClientConnection>& conn) override {
    base::MutexLock lock(mu);
    UnparkLocked(conn);
    DropLocked(conn);
  }

  void OnServerState(const std::shared_ptr<ClientConnection>& conn, ServerState state) override {
    if (OnParkedState(conn, state)) return;
    bool close_now = false;
    {
      base::MutexLock lock(mu);
      if (state == ServerState::kServing) {
        servers[conn->server()].avoid_until = {};
        SetLameDuckLocked(conn->server(), false);
        return;
      }
      if (state != ServerState::kLameDuck) return;
      AvoidLocked(conn->server(), options.lame_duck_avoid);
      SetLameDuckLocked(conn->server(), true);
      // Make before break: while no pooled connection to a server that is not draining remains,
      // this one stays (a lame duck still runs what a client that heard of it before sends on
      // it; see Server) until the acquirer pools a replacement (Admit), so that a drain never
      // leaves the pool empty while other servers serve; but no longer than lame_duck_avoid
      // (ReleaseOverdueDraining), so that a client with nowhere else to go does not hold a
      // drain up.
      if (!OthersPooledLocked(conn->server())) return;
      close_now = DropLocked(conn);
    }
    // A busy connection finishes its request first; OnAttemptDone closes it then.
    if (close_now) conn->Close();
  }

  // A held starting connection hears its server's state: serving admits it to the pool, anything
  // but starting lets it go. Returns false if `conn` is not held.
  bool OnParkedState(const std::shared_ptr<ClientConnection>& conn, ServerState state) {
    {
      base::MutexLock lock(mu);
      if (state == ServerState::kStarting || !UnparkLocked(conn)) {
        return servers[conn->server()].starting == conn;
      }
      if (state == ServerState::kLameDuck) AvoidLocked(conn->server(), options.lame_duck_avoid);
    }
    if (state != ServerState::kServing || !Admit(conn->server(), conn)) conn->Close();
    return true;
  }

  // Lets go of `conn` if it is the one held for its starting server; true if it was.
  bool UnparkLocked(const std::shared_ptr<ClientConnection>& conn) RAILYARD_REQUIRES(mu) {
    std::shared_ptr<ClientConnection>& held = servers[conn->server()].starting;
    if (held != conn) return false;
    held.reset();
    return true;
  }

  // Marks `server` draining or not. Its pooled connections sort behind every other (SlotPool),
  // so that while they are kept a replacement with any slot displaces them.
  void SetLameDuckLocked(uint32_t server, bool lame_duck) RAILYARD_REQUIRES(mu) {
    ServerEntry& entry = servers[server];
    if (lame_duck && !entry.lame_duck) entry.lame_duck_since = Clock::now();
    entry.lame_duck = lame_duck;
    pool.SetServerDraining(server, lame_duck);
  }

  // Whether the pool holds a member on a server other than `server` that is not draining
  // (a busy connection evicted from the pool, still in conns until its request ends, is none).
  bool OthersPooledLocked(uint32_t server) const RAILYARD_REQUIRES(mu) {
    for (const SlotPool::Handle handle : pool.order()) {
      const SlotPool::Entry& e = pool.entry(handle);
      if (e.server != server && !e.draining) return true;
    }
    return false;
  }

  // The connections kept to draining servers go (make before break): all of them once a
  // replacement was pooled, or those of servers draining since `cutoff` or before. Returns those
  // idle now, to be closed outside the lock.
  std::vector<std::shared_ptr<ClientConnection>> DropDrainingLocked(
      Clock::time_point cutoff = Clock::time_point::max()) RAILYARD_REQUIRES(mu) {
    std::vector<std::shared_ptr<ClientConnection>> idle;
    // The common case, checked without copying the connection table: nothing is draining.
    if (std::none_of(servers.begin(), servers.end(),
                     [](const ServerEntry& e) { return e.lame_duck; })) {
      return idle;
    }
    for (const std::shared_ptr<ClientConnection>& c : std::vector(conns)) {
      if (!c) continue;
      const ServerEntry& server = servers[c->server()];
      if (server.lame_duck && server.lame_duck_since <= cutoff && DropLocked(c)) {
        idle.push_back(c);
      }
    }
    return idle;
  }

  // The connections kept to servers that have been draining for lame_duck_avoid go.
  void ReleaseOverdueDraining() {
    std::vector<std::shared_ptr<ClientConnection>> idle;
    {
      base::MutexLock lock(mu);
      idle = DropDrainingLocked(Clock::now() - options.lame_duck_avoid);
    }
    for (auto& c : idle) c->Close();
  }

  // Takes `conn` out of the pool. Returns true if it is idle and should be closed now.
  bool DropLocked(const std::shared_ptr<ClientConnection>& conn) RAILYARD_REQUIRES(mu) {
    const SlotPool::Handle handle = conn->handle;
    if (handle >= conns.size() || conns[handle] != conn)
      return false;  // Not (or no longer) pooled.
    if (!pool.Remove(handle)) return false;
    conns[handle].reset();
    WakeAcquirersLocked();
    return true;
  }

  // A pool that lost a member: an acquirer resting after a probe that did not improve the pool
  // (a settled client's backoff can be seconds), or a spare one waiting on a full pool, probes
  // again at once. Each timer is cancelled on its acquirer's own strand, if it is still waiting
  // there.
  void WakeAcquirersLocked(bool all = false) RAILYARD_REQUIRES(mu) {
    for (const AcquirerPause& p : pauses) {
      if (!p.backing_off && !all) continue;
      BeginWork();
      asio::post(p.executor, [this, timer = p.timer, all] {
        {
          base::MutexLock lock(mu);
          for (const AcquirerPause& q : pauses) {
            if (q.timer == timer && (q.backing_off || all)) timer->cancel();
          }
        }
        EndWork();
      });
    }
  }

  // --- Work on shared I/O threads (ClientOptions::io) ----------------------------------------
  // What of this client's is on them: acquirer loops, posted wakes and connections (each holds a
  // WorkToken). Stop waits for it to end before the Impl may go; on threads of its own the
  // io_context goes with the Impl instead, and none of this is counted.

  void BeginWork() {
    if (!shared_io) return;
    base::MutexLock lock(work_mu);
    ++work;
  }
  void EndWork() {
    if (!shared_io) return;
    base::MutexLock lock(work_mu);
    if (--work == 0) work_cv.NotifyAll();
  }
  // Ends its work when the last copy goes: a connection's last act.
  std::shared_ptr<void> WorkToken() {
    if (!shared_io) return nullptr;
    BeginWork();
    return std::shared_ptr<void>(nullptr, [this](void*) { EndWork(); });
  }
  // False if work was still left at `give_up`.
  bool WaitForWorkToEnd(Clock::time_point give_up) {
    base::MutexLock lock(work_mu);
    while (work != 0) {
      if (!work_cv.WaitUntil(work_mu, give_up)) return work == 0;
    }
    return true;
  }

  asio::io_context& Context() { return shared_io ? shared_io->context() : io; }

  // Client::Stop's end on shared I/O threads, after CloseAll: wakes every acquirer, and until
  // this client's work there has ended, closes what an acquirer admitted meanwhile and lets go
  // of the Impl's own references to its connections, so that each goes once its handlers end.
  void StopOnSharedThreads() {
    {
      base::MutexLock lock(mu);
      WakeAcquirersLocked(/*all=*/true);
    }
    // An acquirer may first finish a probe under way (connect_timeout at most).
    const Clock::time_point give_up =
        Clock::now() + options.connect_timeout + std::chrono::seconds(5);
    for (;;) {
      CloseAll();
      {
        base::MutexLock lock(mu);
        for (auto& conn : conns) conn.reset();  // Handles stay valid for late OnAttemptDone.
        opening.clear();
        for (ServerEntry& server : servers) server.starting.reset();
      }
      const Clock::time_point now = Clock::now();
      if (WaitForWorkToEnd(std::min(give_up, now + std::chrono::milliseconds(50)))) return;
      if (now >= give_up) break;
    }
    int64_t left;
    {
      base::MutexLock lock(work_mu);
      left = work;
    }
    internal::Log(LogLevel::kError,
                  "client: {} pieces of work still on the shared I/O threads after stopping; "
                  "leaving this client's state in memory rather than free it under them",
                  left);
    leak_on_destroy = true;
  }

  void SetBackingOff(asio::steady_timer* timer, bool backing_off) {
    base::MutexLock lock(mu);
    for (AcquirerPause& p : pauses) {
      if (p.timer == timer) p.backing_off = backing_off;
    }
  }

  // Sleeps up to `how_long` on the acquirer's `pause`, woken early by WakeAcquirersLocked.
  // only_if_full: not at all unless the pool is full, checked once the wake is armed so that a
  // loss in between is not missed. Returns whether it slept.
  asio::awaitable<bool> SleepUntilLoss(asio::steady_timer& pause,
                                       std::chrono::milliseconds how_long, bool only_if_full) {
    SetBackingOff(&pause, true);
    const bool sleep = !only_if_full || PoolFull();
    if (sleep) co_await Sleep(pause, how_long);
    SetBackingOff(&pause, false);
    co_return sleep;
  }

  void AvoidLocked(uint32_t server, std::chrono::milliseconds how_long) RAILYARD_REQUIRES(mu) {
    servers[server].avoid_until = Clock::now() + how_long;
  }

  // Closes every pooled connection and every one an acquirer is still opening: a probe that is
  // mid-handshake holds a server slot too, and nothing else would close it before ~Client.
  void CloseAll() {
    std::vector<std::shared_ptr<ClientConnection>> open;
    {
      base::MutexLock lock(mu);
      for (auto& conn : conns) {
        if (conn) open.push_back(conn);
      }
      for (const ServerEntry& server : servers) {
        if (server.starting) open.push_back(server.starting);
      }
      open.insert(open.end(), opening.begin(), opening.end());
    }
    for (auto& conn : open) conn->Close();
  }

  void SetOpening(const std::shared_ptr<ClientConnection>& conn, bool is_opening) {
    {
      base::MutexLock lock(mu);
      if (is_opening) {
        opening.push_back(conn);
      } else {
        std::erase(opening, conn);
      }
    }
    // Stop's CloseAll may have run just before: a connect begun now would hold Stop up.
    if (is_opening && stopping.load()) conn->Close();
  }

  // --- The acquirer ------------------------------------------------------------------------

  std::optional<uint32_t> ChooseServerToProbe(std::mt19937_64& rng) {
    base::MutexLock lock(mu);
    const Clock::time_point now = Clock::now();
    std::vector<uint32_t> candidates;
    for (uint32_t i = 0; i < servers.size(); ++i) {
      if (membership.Wanted(i) && servers[i].avoid_until <= now && !servers[i].starting) {
        candidates.push_back(i);
      }
    }
    if (candidates.empty()) return std::nullopt;
    return candidates[std::uniform_int_distribution<size_t>(0, candidates.size() - 1)(rng)];
  }

  std::chrono::milliseconds Jitter(std::mt19937_64& rng) {
    const auto lo = options.acquirer_sleep_min.count();
    const auto hi = std::max(lo, options.acquirer_sleep_max.count());
    return std::chrono::milliseconds(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
  }

  // How long a spare acquirer sleeps on a full pool when no loss wakes it.
  static constexpr std::chrono::milliseconds kSpareAcquirerRecheck{5000};

  // x1 for the first four fruitless probes, then doubling every four, up to the limit.
  int64_t BackoffFactor(uint32_t fruitless) const {
    const int64_t limit = std::max<int64_t>(1, options.acquirer_backoff_limit);
    return std::min<int64_t>(limit, int64_t{1} << std::min<uint32_t>(fruitless / 4, 20));
  }

  // Acquirer 0 always runs; the others only while the pool is short of capacity. Each round
  // probes one server and offers the new connection to the pool, which keeps it if its slot is
  // better than the worst pooled one (or the pool has room).
  asio::awaitable<void> AcquireLoop(size_t index, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const asio::any_io_executor executor = co_await asio::this_coro::executor;
    asio::steady_timer pause(executor);
    // Registered for WakeAcquirersLocked while the loop runs (on this strand, as the wake is).
    // Taken out when the loop ends, not by a destructor: a frame destroyed with the io_context
    // outlives the mutex.
    {
      base::MutexLock lock(mu);
      pauses.push_back({&pause, executor});
    }
    const wire::Hello hello = MakeHello();
    uint32_t fruitless = 0;  // Probes in a row that did not improve a full pool.

    while (!stopping.load()) {
      if (index == 0) ReleaseOverdueDraining();
      // A spare acquirer waits while the pool is full: for a loss to wake it, or a recheck.
      // (It used to poll every 10-50 ms: a hundred wake-ups a second per idle client.)
      if (index > 0 && co_await SleepUntilLoss(pause, kSpareAcquirerRecheck, true)) continue;
      const std::optional<uint32_t> target = ChooseServerToProbe(rng);
      if (!target) {
        co_await Sleep(pause, options.acquirer_sleep_max);
        continue;
      }
      const std::shared_ptr<ClientConnection> conn = co_await Probe(*target, hello);
      if (!conn) continue;    // Down or draining: Probe has set it aside for a while.
      if (stopping.load()) {  // Stop closed what it found; this one opened after.
        conn->Close();
        break;
      }
      if (conn->server_state() == ServerState::kStarting) {
        Park(*target, conn);
        continue;
      }
      if (!Admit(*target, conn)) {
        conn->Close();
        ++fruitless;
        // Wakeable however short: were every acquirer resting here when the pool loses a member
        // (acquirer 0 can fill the pool before a spare's first probe returns), none would be left
        // for the loss to wake, and the pool would stay short for a whole rest. Only if still
        // full once the wake is armed: a loss since Admit turned this probe away posted no wake.
        co_await SleepUntilLoss(pause, Jitter(rng) * BackoffFactor(fruitless), true);
        continue;
      }
      fruitless = 0;
      conn->StartReading(ConnectionHealthChecks());
    }
    {
      base::MutexLock lock(mu);
      std::erase_if(pauses, [&](const AcquirerPause& p) { return p.timer == &pause; });
    }
    EndWork();  // Begun by Start. Nothing of the Impl is touched after this.
  }

  // Holds a connection to a starting server, reading, until it says serving (OnParkedState).
  void Park(uint32_t target, const std::shared_ptr<ClientConnection>& conn) {
    {
      base::MutexLock lock(mu);
      if (servers[target].starting || stopping.load()) {
        conn->Close();  // Another acquirer holds one already; one per server is enough.
        return;
      }
      servers[target].starting = conn;
    }
    conn->StartReading(ConnectionHealthChecks());
  }

  ClientConnection::HealthChecks ConnectionHealthChecks() const {
    return {options.health_check_interval, options.connect_timeout, options.inactive_after,
            options.inactive_health_check_interval};
  }

  wire::Hello MakeHello() const {
    wire::Hello hello;
    hello.set_client_id(client_id);
    hello.set_client_name(options.client_name);
    hello.set_protocol_version(kProtocolVersion);
    hello.set_credentials(options.credentials);
    return hello;
  }

  static asio::awaitable<void> Sleep(asio::steady_timer& timer,
                                     std::chrono::milliseconds how_long) {
    asio::error_code ignored;  // Cancelled only when the client stops; the loop checks for that.
    timer.expires_after(how_long);
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }

  bool PoolFull() const {
    base::MutexLock lock(mu);
    return pool.full();
  }

  // Opens a connection to `target` and says hello. Returns it open, or null if it failed or the
  // server is a lame duck (either way the server is avoided for a while).
  asio::awaitable<std::shared_ptr<ClientConnection>> Probe(uint32_t target,
                                                           const wire::Hello& hello) {
    asio::ip::tcp::endpoint endpoint;
    if (const Status resolved = co_await Resolve(target, &endpoint); !resolved.ok()) {
      OnConnectFailed(target, resolved);
      co_return nullptr;
    }
    std::string address;
    internal::ConnectionTls tls;
    {
      base::MutexLock lock(mu);
      address = servers[target].address;
      if (tls_context) {
        tls.context = tls_context.get();
        tls.server_name = options.tls->server_name.empty() ? servers[target].endpoint.host
                                                           : options.tls->server_name;
        tls.verify_peer = options.tls->verify_peer;
      }
    }
    auto conn = std::make_shared<ClientConnection>(asio::make_strand(Context()), target, address,
                                                   options.max_frame_bytes, this, tls, WorkToken(),
                                                   uring.load(std::memory_order_relaxed));
    SetOpening(conn, true);
    const Status opened = co_await asio::co_spawn(
        conn->executor(), conn->Open(endpoint, hello, options.connect_timeout),
        asio::use_awaitable);
    // Pooled (and so closed by CloseAll from conns) or closed by the acquirer.
    SetOpening(conn, false);
    if (!opened.ok()) {
      OnConnectFailed(target, opened, conn->refused_as_configured());
      co_return nullptr;
    }
    if (conn->server_state() == ServerState::kLameDuck) {
      {
        base::MutexLock lock(mu);
        AvoidLocked(target, options.lame_duck_avoid);
      }
      conn->Close();
      co_return nullptr;
    }
    co_return conn;
  }

  void OnConnectFailed(uint32_t target, const Status& failure, bool refused_as_configured = false) {
    // Stop closed the socket under a connect in flight ("Bad file descriptor"): not the server's
    // failure, and no warning.
    if (stopping.load()) return;
    base::MutexLock lock(mu);
    ServerEntry& server = servers[target];
    server.refused_as_configured = refused_as_configured;
    ++counters.connect_failures;
    // Back off from a dead server, doubling up to a second, so probing it stays cheap.
    const int exponent = std::min(server.consecutive_failures++, 6);
    AvoidLocked(target, std::chrono::milliseconds(16 << exponent));
    if (server.consecutive_failures == 1)
      internal::Log(LogLevel::kWarning, "client: {}", failure.message());
    last_connect_failure = failure.message();
    pool_cv.NotifyAll();  // WaitForPoolOrConnectFailure.
    if (server.consecutive_failures >= kFailedConnectsBeforeReplacing && !PooledLocked(target)) {
      membership.SetDown(target, true);  // Adds a replacement for a subset member.
    }
  }

  // Client::WaitForPool and its kin: until the pool holds `connections` (true), or `timeout`
  // passes, or more than `connect_failures_before` connects failed, or (`unless_refused`) every
  // server refused as configured (false).
  bool WaitForPool(size_t connections, std::chrono::milliseconds timeout,
                   uint64_t connect_failures_before, bool unless_refused) const {
    const Clock::time_point give_up = Clock::now() + timeout;
    base::MutexLock lock(mu);
    while (pool.size() < connections && counters.connect_failures <= connect_failures_before &&
           !(unless_refused && EveryServerRefusesLocked())) {
      if (!pool_cv.WaitUntil(mu, give_up)) break;
    }
    return pool.size() >= connections;
  }

  // Every server the acquirer would connect to refused its latest connection as configured.
  bool EveryServerRefusesLocked() const RAILYARD_REQUIRES(mu) {
    bool any = false;
    for (uint32_t i = 0; i < servers.size(); ++i) {
      if (!membership.Wanted(i)) continue;
      if (servers[i].consecutive_failures == 0 || !servers[i].refused_as_configured) return false;
      any = true;
    }
    return any;
  }

  bool PooledLocked(uint32_t server) const RAILYARD_REQUIRES(mu) {
    for (const SlotPool::Handle handle : pool.order()) {
      if (pool.entry(handle).server == server) return true;
    }
    return false;
  }

  // Offers the open connection `conn` to `target` to the pool. Returns false if the pool
  // rejected it (the caller closes it); closes the idle connection it evicted, if any.
  bool Admit(uint32_t target, const std::shared_ptr<ClientConnection>& conn) {
    MarkUp(target);
    SlotPool::Admission admission;
    std::shared_ptr<ClientConnection> evicted;
    std::vector<std::shared_ptr<ClientConnection>> draining;
    {
      base::MutexLock lock(mu);
      servers[target].consecutive_failures = 0;
      servers[target].refused_as_configured = false;
      ++counters.connects;
      // The subset may have moved while this connection was opening; one to a server that left
      // it would otherwise stay pooled for good (rejected: default Admission).
      if (membership.Wanted(target)) {
        admission = pool.Offer(target, conn->slot(), servers[target].tie_break);
      }
      if (admission.kind == SlotPool::Admission::Kind::kRejected) return false;
      if (admission.evicted) {
        ++counters.replacements;
        // A busy victim stays in conns until its request ends; OnAttemptDone closes it.
        if (!admission.evicted_still_busy) evicted = std::move(conns[*admission.evicted]);
      }
      conn->handle = admission.handle;
      if (conns.size() <= admission.handle) conns.resize(admission.handle + 1);
      conns[admission.handle] = conn;
      // Pooled connections said serving (Probe turns lame ducks away): the server is not
      // draining, whatever an older connection heard.
      SetLameDuckLocked(target, false);
      draining = DropDrainingLocked();
      pool_cv.NotifyAll();
    }
    if (evicted) evicted->Close();
    for (auto& c : draining) c->Close();
    return true;
  }

  // `target` accepted a connection: a subset member that is back releases its replacement,
  // whose pooled connections go (busy ones when their request ends).
  void MarkUp(uint32_t target) {
    std::vector<std::shared_ptr<ClientConnection>> to_close;
    {
      base::MutexLock lock(mu);
      if (membership.SetDown(target, false)) to_close = DropUnwantedLocked();
    }
    for (auto& conn : to_close) conn->Close();
  }

  struct LookupResult {
    bool timed_out = true;
    asio::error_code error;
    asio::ip::tcp::resolver::results_type results;
  };

  // Sets `*endpoint` to `target`'s address, resolving its host first if no probe has yet. The
  // system lookup runs on asio's resolver thread; this acquirer waits for it at most
  // connect_timeout, and a failure is a failed connect (reported, then retried after a backoff).
  // Acquirers that probe a new server at once each look it up: were the others to wait for one
  // lookup, a new pool would fill one connection per acquirer sleep rather than in parallel.
  asio::awaitable<Status> Resolve(uint32_t target, asio::ip::tcp::endpoint* endpoint) {
    std::optional<asio::ip::tcp::endpoint> known;
    Endpoint server;
    {
      base::MutexLock lock(mu);
      known = servers[target].resolved;
      server = servers[target].endpoint;
    }
    if (known) {
      *endpoint = *known;
      co_return Status::Ok();
    }
    co_return Settle(target, server, co_await Lookup(server), endpoint);
  }

  // Records the outcome of resolving `target` (`server`); on success sets `*endpoint`.
  Status Settle(uint32_t target, const Endpoint& server, const LookupResult& lookup,
                asio::ip::tcp::endpoint* endpoint) {
    base::MutexLock lock(mu);
    if (lookup.timed_out) {
      return {Code::kUnavailable, "resolving " + server.host + " (server " + server.ToString() +
                                      ") timed out after " +
                                      std::to_string(options.connect_timeout.count()) + " ms"};
    }
    if (lookup.error || lookup.results.empty()) {
      return {Code::kUnavailable,
              "cannot resolve " + server.host + " (server " + server.ToString() +
                  "): " + (lookup.error ? lookup.error.message() : "no address")};
    }
    servers[target].resolved = lookup.results.begin()->endpoint();
    *endpoint = *servers[target].resolved;
    return Status::Ok();
  }

  // asio's resolver cannot interrupt a system lookup under way (cancel() only drops one not yet
  // started), so the lookup's handler and the deadline race on this coroutine's strand and
  // whichever comes first wakes it; a lookup that finishes later is discarded.
  asio::awaitable<LookupResult> Lookup(const Endpoint& server) const {
    struct Pending {
      explicit Pending(const asio::any_io_executor& executor)
          : resolver(executor), wake(executor) {}
      asio::ip::tcp::resolver resolver;
      asio::steady_timer wake;
      LookupResult result;
    };
    auto pending = std::make_shared<Pending>(co_await asio::this_coro::executor);
    pending->wake.expires_after(options.connect_timeout);
    pending->resolver.async_resolve(
        server.host, std::to_string(server.port),
        [pending](const asio::error_code& error, asio::ip::tcp::resolver::results_type results) {
          pending->result = {false, error, std::move(results)};
          pending->wake.cancel();
        });
    asio::error_code ignored;  // Expired or cancelled: `result` says which.
    co_await pending->wake.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    if (pending->result.timed_out) pending->resolver.cancel();
    co_return pending->result;
  }

  // An IP address needs no lookup: it is resolved here, without blocking.
  static ServerEntry MakeServerEntry(Endpoint endpoint) {
    ServerEntry entry;
    entry.address = endpoint.ToString();
    asio::error_code not_an_address;
    const asio::ip::address ip = asio::ip::make_address(endpoint.host, not_an_address);
    if (!not_an_address) entry.resolved.emplace(ip, endpoint.port);
    entry.endpoint = std::move(endpoint);
    return entry;
  }

  // Takes pooled connections to servers no longer wanted (out of the subset, a replacement no
  // longer needed, removed) out of the pool; returns those to close now (busy ones close when
  // their request ends, so calls in flight finish).
  std::vector<std::shared_ptr<ClientConnection>> DropUnwantedLocked() RAILYARD_REQUIRES(mu) {
    std::vector<std::shared_ptr<ClientConnection>> to_close;
    const std::vector<SlotPool::Handle> members = pool.order();
    for (const SlotPool::Handle handle : members) {
      if (membership.Wanted(pool.entry(handle).server)) continue;
      std::shared_ptr<ClientConnection> conn = conns[handle];
      if (conn && DropLocked(conn)) to_close.push_back(std::move(conn));
    }
    return to_close;
  }

  uint32_t AppendServerLocked(ServerEntry entry) RAILYARD_REQUIRES(mu) {
    // Random tie-break ranks, distinct per client, so clients spread their equal-slot preferences.
    entry.tie_break = static_cast<uint32_t>(tie_break_rng());
    servers.push_back(std::move(entry));
    membership.Add();
    return static_cast<uint32_t>(servers.size() - 1);
  }

  // Set by Start when options.tls is, then only read. Declared before io so that it outlives
  // every connection's TLS stream.
  std::unique_ptr<asio::ssl::context> tls_context;
  // Plain connections on io_uring (ClientOptions::io_engine), decided by Start.
  std::atomic<bool> uring{false};
  // Declared first so it is destroyed last: handlers still queued in it reference the rest.
  // Unused when the client runs on shared_io.
  asio::io_context io;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> io_work;
  std::vector<std::thread> threads;

  const ClientOptions options;
  const std::shared_ptr<IoThreads> shared_io = options.io;
  base::Mutex work_mu;
  base::CondVar work_cv;  // Notified when work drops to zero.
  int64_t work RAILYARD_GUARDED_BY(work_mu) = 0;
  // Stop found work still on the shared threads after its deadline: the Impl must not go.
  bool leak_on_destroy = false;
  const std::shared_ptr<SelectionPolicy> policy;
  const uint64_t client_id;
  const uint64_t seed;
  std::mt19937_64 tie_break_rng RAILYARD_GUARDED_BY(mu){base::MixSeed(seed, kTieBreakStream)};
  std::atomic<uint64_t> next_request_id{1};
  std::atomic<bool> stopping{false};
  std::atomic<bool> started{false};
  std::atomic<int64_t> calls_in_flight{0};
  // The client-seen figures of Snapshot().throughput; both are thread safe on their own.
  base::MethodStats call_stats;
  base::DecayingRate retry_rate;

  mutable base::Mutex mu;
  mutable base::CondVar pool_cv;  // Notified when a connection joins the pool.
  base::CondVar calls_cv;         // Notified when calls_in_flight drops to zero.
  SlotPool pool RAILYARD_GUARDED_BY(mu);
  std::vector<std::shared_ptr<ClientConnection>> conns
      RAILYARD_GUARDED_BY(mu);  // Indexed by handle.
  std::vector<std::shared_ptr<ClientConnection>> opening RAILYARD_GUARDED_BY(mu);  // Being opened.
  struct AcquirerPause {
    asio::steady_timer* timer;       // In its AcquireLoop's frame.
    asio::any_io_executor executor;  // Its strand.
    bool backing_off = false;        // In a backoff, or a spare waiting on a full pool: wakeable.
  };
  std::vector<AcquirerPause> pauses RAILYARD_GUARDED_BY(mu);
  std::vector<ServerEntry> servers RAILYARD_GUARDED_BY(mu);
  SubsetMembership membership RAILYARD_GUARDED_BY(mu);  // Which servers: by the same indices.
  ClientCounters counters RAILYARD_GUARDED_BY(mu);
  std::string last_connect_failure RAILYARD_GUARDED_BY(mu);
  std::optional<balance::RetryBudget> retry_budget RAILYARD_GUARDED_BY(mu);
};

Client::Client(ClientOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  base::MutexLock lock(impl_->mu);  // Uncontended: nothing runs yet.
  for (const Endpoint& server : impl_->options.servers) {
    impl_->AppendServerLocked(Impl::MakeServerEntry(server));
  }
}

Client::~Client() {
  Stop();
  // Stop could not see the client's work on shared threads end: a handler left there would find
  // the Impl gone. Stop has logged it; leaking it is the lesser harm.
  if (impl_->leak_on_destroy) (void)impl_.release();
}

Status Client::Start() {
  Impl& m = *impl_;
  if (m.options.pool_size == 0) return {Code::kInvalidArgument, "pool_size must be at least 1"};
  if (m.options.max_retries < 0) return {Code::kInvalidArgument, "max_retries must be >= 0"};
  if (m.options.io_threads == 0 && !m.shared_io) {
    return {Code::kInvalidArgument, "io_threads must be at least 1"};
  }
  if (m.options.balance && m.options.balance->max_active_per_backend == 0) {
    return {Code::kInvalidArgument, "balance.max_active_per_backend must be at least 1"};
  }
  if (m.options.subset_mode != balance::SubsetMode::kNone && m.options.subset_size == 0) {
    return {Code::kInvalidArgument, "subsetting needs a subset size of at least 1"};
  }
  // A random id would give each client a random subset: the uneven spread deterministic
  // subsetting exists to avoid, silently. Refusing costs the operator one restart.
  if (m.options.subset_mode == balance::SubsetMode::kDeterministic && !m.options.client_index &&
      m.options.client_id == 0) {
    return {Code::kInvalidArgument,
            "deterministic subsetting needs this client's index (ClientOptions::client_index; "
            "railyardctl load --client-index N): give the clients of these servers 0, 1, 2, ... "
            "in turn, or they take random, uneven subsets"};
  }
  if (m.options.retry_budget && !(m.options.retry_budget->ratio >= 0)) {
    return {Code::kInvalidArgument, "retry_budget.ratio must be >= 0"};
  }
  if (m.started.load()) return {Code::kFailedPrecondition, "client already started"};
  if (m.options.tls) {
    std::unique_ptr<asio::ssl::context> context;
    if (Status s = internal::MakeClientTlsContext(*m.options.tls, &context); !s.ok()) return s;
    base::MutexLock lock(m.mu);
    m.tls_context = std::move(context);
  }
  if (m.started.exchange(true)) return {Code::kFailedPrecondition, "client already started"};
  const internal::IoEngineChoice engine =
      internal::ChooseIoEngine(m.options.io_engine, m.options.tls.has_value(), m.Context());
  m.uring = engine.uring;
  // Once a process: a program may run many clients (the console, one per node it watches).
  static std::atomic<bool> fallback_logged{false};
  if (engine.refused && !fallback_logged.exchange(true)) {
    internal::Log(LogLevel::kInfo, "Boxcar clients' connections on {}", engine.description);
  }
  if (!m.shared_io) {
    m.io_work.emplace(asio::make_work_guard(m.io));
    for (size_t i = 0; i < m.options.io_threads; ++i)
      m.threads.emplace_back([&m] {
        internal::MarkBoxcarIoThread();
        m.io.run();
      });
  }
  const size_t acquirers = std::max<size_t>(1, m.options.refill_parallelism);
  for (size_t i = 0; i < acquirers; ++i) {
    m.BeginWork();  // Ended by the loop itself.
    // Each on its own strand, with its own random stream.
    asio::co_spawn(asio::make_strand(m.Context()),
                   m.AcquireLoop(i, base::MixSeed(m.seed, kAcquirerStream, i)), asio::detached);
  }
  return Status::Ok();
}

void Client::Stop() {
  Impl& m = *impl_;
  if (m.stopping.exchange(true)) return;
  // Closing fails the pending attempt of each busy connection with CANCELLED, so every caller
  // hears back before the threads go.
  m.CloseAll();
  {
    const Clock::time_point give_up = Clock::now() + std::chrono::seconds(2);
    base::MutexLock lock(m.mu);
    while (m.calls_in_flight.load() != 0) {
      if (!m.calls_cv.WaitUntil(m.mu, give_up)) break;
    }
  }
  if (m.shared_io) {
    m.StopOnSharedThreads();
    return;
  }
  m.io_work.reset();
  m.io.stop();
  for (auto& t : m.threads) t.join();
  m.threads.clear();
  // The acquirer may have admitted connections meanwhile, and io.stop() may have beaten the
  // posted closes: close everything now, on this thread, so servers see the client go at once.
  m.CloseAll();
  m.io.restart();
  m.io.poll();
  base::MutexLock lock(m.mu);
  m.conns.clear();  // Sockets go while the io_context still exists.
}

void Client::AsyncCall(std::string method, std::string payload, CallCallback done,
                       std::chrono::milliseconds timeout) {
  Impl& m = *impl_;
  if (!m.started.load() || m.stopping.load()) {
    done({{Code::kCancelled, "client is not running"}, {}, 0, std::nullopt});
    return;
  }
  auto call = std::make_unique<Impl::Call>();
  call->client = &m;
  call->method = std::move(method);
  call->payload = std::move(payload);
  call->done = std::move(done);
  call->started = Clock::now();
  call->deadline = call->started + (timeout.count() > 0 ? timeout : m.options.default_timeout);
  m.calls_in_flight.fetch_add(1);
  m.Attempt(std::move(call));
}

CallResult Client::Call(std::string method, std::string payload,
                        std::chrono::milliseconds timeout) {
  std::promise<CallResult> promise;
  std::future<CallResult> future = promise.get_future();
  AsyncCall(
      std::move(method), std::move(payload),
      [&promise](CallResult&& result) { promise.set_value(std::move(result)); }, timeout);
  return future.get();
}

uint32_t Client::AddServer(Endpoint server) {
  uint32_t index;
  std::vector<std::shared_ptr<ClientConnection>> to_close;
  {
    base::MutexLock lock(impl_->mu);
    index = impl_->AppendServerLocked(Impl::MakeServerEntry(std::move(server)));
    to_close = impl_->DropUnwantedLocked();
  }
  for (auto& conn : to_close) conn->Close();
  return index;
}

Status Client::RemoveServer(uint32_t index) {
  std::vector<std::shared_ptr<ClientConnection>> to_close;
  {
    base::MutexLock lock(impl_->mu);
    if (index >= impl_->servers.size() || impl_->membership.removed(index)) {
      return {Code::kNotFound, "no server " + std::to_string(index) + " to remove"};
    }
    impl_->membership.Remove(index);
    to_close = impl_->DropUnwantedLocked();
    // A connection held while the server starts would join the pool once it serves.
    if (auto& held = impl_->servers[index].starting) to_close.push_back(std::move(held));
  }
  for (auto& conn : to_close) conn->Close();
  return Status::Ok();
}

bool Client::WaitForPool(size_t connections, std::chrono::milliseconds timeout) const {
  return impl_->WaitForPool(connections, timeout, std::numeric_limits<uint64_t>::max(), false);
}

bool Client::WaitForPoolOrConnectFailure(size_t connections, std::chrono::milliseconds timeout,
                                         uint64_t connect_failures_before) const {
  return impl_->WaitForPool(connections, timeout, connect_failures_before, false);
}

bool Client::WaitForPoolUnlessRefused(size_t connections, std::chrono::milliseconds timeout) const {
  return impl_->WaitForPool(connections, timeout, std::numeric_limits<uint64_t>::max(), true);
}

IoEngine Client::io_engine() const {
  return impl_->uring.load() ? IoEngine::kIoUring : IoEngine::kEpoll;
}

PoolSnapshot Client::Snapshot() const {
  const Impl& m = *impl_;
  PoolSnapshot snapshot;
  // Outside the pool lock: the policy has its own.
  snapshot.policy = std::string(m.policy->name());
  snapshot.policy_state = m.policy->Explain();
  snapshot.subset_mode = m.options.subset_mode;
  const base::MethodStats::Summary calls = m.call_stats.Overall();
  snapshot.throughput = {calls.requests_per_s,
                         calls.errors_per_s,
                         m.call_stats.rejections_per_s(),
                         m.retry_rate.PerSecond(Clock::now()),
                         calls.p50_us,
                         calls.p99_us,
                         calls.max_us};
  base::MutexLock lock(m.mu);
  snapshot.client_id = m.client_id;
  snapshot.capacity = m.pool.capacity();
  snapshot.counters = m.counters;
  snapshot.last_connect_failure = m.last_connect_failure;
  snapshot.entries.reserve(m.pool.size());
  for (const SlotPool::Handle handle : m.pool.order()) {
    const SlotPool::Entry& e = m.pool.entry(handle);
    snapshot.entries.push_back({e.server, m.servers[e.server].address, e.slot, e.busy, e.requests});
  }
  for (uint32_t i = 0; i < m.servers.size(); ++i) {
    snapshot.server_addresses.push_back(m.servers[i].address);
  }
  snapshot.subset = m.membership.Subset();
  snapshot.replacements = m.membership.Replacements();
  // The policy never sees a removed server again (it has no connection left), but it remembers
  // what it knew; telemetry shows only the servers the client still balances over.
  if (snapshot.policy_state) {
    std::vector<balance::BackendExplanation> kept;
    for (balance::BackendExplanation& b : snapshot.policy_state->backends) {
      if (b.backend >= m.membership.size() || !m.membership.removed(b.backend)) {
        kept.push_back(std::move(b));
      }
    }
    snapshot.policy_state->backends = std::move(kept);
  }
  return snapshot;
}

uint64_t Client::client_id() const { return impl_->client_id; }

}  // namespace railyard::rpc
