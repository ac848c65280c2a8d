// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/server.h"

#include <algorithm>
#include <thread>

#include "core/base/usable_cores.h"
#include "core/rpc/logging.h"
#include "core/rpc/server_core.h"
#include "core/rpc/server_session.h"
#include "core/rpc/tls_context.h"
#include "core/rpc/transport.h"
#include "core/rpc/uring_service.h"

namespace railyard::rpc {
namespace internal {

namespace {
size_t WorkerCount(const ServerOptions& o) {
  return o.worker_threads ? o.worker_threads : kDefaultWorkerThreads;
}
}  // namespace

ServerCore::ServerCore(ServerOptions opts)
    : options(std::move(opts)), workers(WorkerCount(options)) {}

std::shared_ptr<asio::ssl::context> ServerCore::TlsContext() const {
  base::MutexLock lock(tls_mu_);
  return tls_context_;
}

void ServerCore::SetTlsContext(std::shared_ptr<asio::ssl::context> context) {
  base::MutexLock lock(tls_mu_);
  tls_context_ = std::move(context);
}

size_t ServerCore::session_count() {
  base::MutexLock lock(sessions_mu_);
  return sessions_.size();
}

void ServerCore::OnRequestFinished(bool error) {
  if (error) {
    errors.fetch_add(1, std::memory_order_relaxed);
    error_rate.Add(std::chrono::steady_clock::now());
  }
  if (in_flight.fetch_sub(1) == 1) {
    std::lock_guard lock(idle_mu);
    idle_cv.notify_all();
  }
}

void ServerCore::OnRefused() {
  refused.fetch_add(1, std::memory_order_relaxed);
  refusal_rate.Add(std::chrono::steady_clock::now());
}

LoadReport ServerCore::Load() const {
  const auto now = std::chrono::steady_clock::now();
  LoadReport load;
  load.utilization = std::min(
      1.0, static_cast<double>(in_flight.load()) / static_cast<double>(WorkerCount(options)));
  load.requests_per_s = request_rate.PerSecond(now);
  load.errors_per_s = error_rate.PerSecond(now);
  return load;
}

void ServerCore::AddSession(const std::shared_ptr<ServerSession>& session) {
  base::MutexLock lock(sessions_mu_);
  sessions_.emplace(session.get(), session);
}

void ServerCore::RemoveSession(ServerSession* session) {
  base::MutexLock lock(sessions_mu_);
  sessions_.erase(session);
}

std::vector<std::shared_ptr<ServerSession>> ServerCore::Sessions() {
  base::MutexLock lock(sessions_mu_);
  std::vector<std::shared_ptr<ServerSession>> out;
  out.reserve(sessions_.size());
  for (auto& [raw, weak] : sessions_) {
    if (auto strong = weak.lock()) out.push_back(std::move(strong));
  }
  return out;
}

}  // namespace internal

using internal::ServerCore;
using internal::ServerSession;
using internal::Transport;

std::string_view ServerStateName(ServerState state) {
  switch (state) {
    case ServerState::kStarting:
      return "starting";
    case ServerState::kServing:
      return "serving";
    case ServerState::kLameDuck:
      return "lame duck";
    case ServerState::kStopped:
      return "stopped";
  }
  return "unknown";
}

struct Server::Impl {
  explicit Impl(ServerOptions options)
      : core(std::move(options)), accept_strand(asio::make_strand(core.io)), acceptor(core.io) {}

  asio::awaitable<void> AcceptLoop() {
    for (;;) {
      asio::error_code ec;
      asio::ip::tcp::socket socket = co_await acceptor.async_accept(
          asio::make_strand(core.io), asio::redirect_error(asio::use_awaitable, ec));
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
      // Accepted as Stop began: after its sweep of the sessions, one started now would hold
      // Stop's wait for the full two seconds.
      if (core.state.load() == ServerState::kStopped) co_return;
      if (ec) {
        // EMFILE and friends: say so, back off briefly rather than spin.
        internal::Log(LogLevel::kWarning, "server {}: accept failed: {}", name, ec.message());
        asio::steady_timer pause(core.io, std::chrono::milliseconds(50));
        co_await pause.async_wait(asio::use_awaitable);
        continue;
      }
      if (core.session_count() >= core.options.max_connections) {
        core.connections_refused.fetch_add(1, std::memory_order_relaxed);
        asio::co_spawn(socket.get_executor(), RefuseConnection(std::move(socket)), asio::detached);
        continue;
      }
      core.connections_accepted.fetch_add(1, std::memory_order_relaxed);
      auto session = std::make_shared<ServerSession>(core, std::move(socket));
      core.AddSession(session);
      session->Start();
    }
  }

  // Tells a connection over the limit why it is refused (the client reports the reason), then
  // closes it; bounded by the handshake timeout so a peer that never reads cannot keep it.
  asio::awaitable<void> RefuseConnection(asio::ip::tcp::socket socket) {
    const std::shared_ptr<asio::ssl::context> tls = core.TlsContext();
    Transport transport = Transport::Make(std::move(socket), tls.get(), core.uring.load());
    Frame frame;
    wire::Welcome* welcome = frame.mutable_welcome();
    welcome->set_protocol_version(kProtocolVersion);
    welcome->set_server_name(core.options.name);
    welcome->set_refusal("server is at its connection limit (" +
                         std::to_string(core.options.max_connections) + ")");
    std::string bytes;
    AppendEncodedFrame(frame, bytes);
    // Over TLS the reason can only be told inside a session, so the handshake comes first;
    // the same deadline bounds both.
    asio::steady_timer limit(transport.socket().get_executor(), core.options.handshake_timeout);
    limit.async_wait([&transport](const asio::error_code& ec) {
      if (!ec) transport.Close();
    });
    const Status shaken = co_await transport.Handshake(asio::ssl::stream_base::server);
    if (shaken.ok()) co_await transport.Write(asio::buffer(bytes));
    limit.cancel();
    transport.Close();
  }

  ServerCore core;
  // The accept loop and Stop's close of the acceptor both run here: the I/O threads are many, and
  // an acceptor is not safe to close on one thread while another looks at it.
  asio::strand<asio::io_context::executor_type> accept_strand;
  asio::ip::tcp::acceptor acceptor;
  std::vector<std::thread> threads;
  uint16_t port = 0;
  std::string name;
  base::Mutex stop_mu;
  bool started RAILYARD_GUARDED_BY(stop_mu) = false;
  bool stopped RAILYARD_GUARDED_BY(stop_mu) = false;
};

Server::Server(ServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  impl_->name = impl_->core.options.name.empty() ? "boxcar" : impl_->core.options.name;
}

Server::~Server() { Stop(); }

void Server::RegisterHandler(std::string method, Handler handler, Dispatch dispatch) {
  impl_->core.handlers[std::move(method)] = {std::move(handler), dispatch};
}

Status Server::Start() {
  Impl& m = *impl_;
  if (m.core.options.tls) {
    std::unique_ptr<asio::ssl::context> tls;
    if (Status s = internal::MakeServerTlsContext(*m.core.options.tls, &tls); !s.ok()) {
      return {s.code(), "server " + m.name + ": " + s.message()};
    }
    m.core.SetTlsContext(std::move(tls));
  }
  asio::error_code ec;
  const asio::ip::address address = asio::ip::make_address(m.core.options.host, ec);
  if (ec) return {Code::kInvalidArgument, "bad listen address '" + m.core.options.host + "'"};
  const asio::ip::tcp::endpoint endpoint(address, m.core.options.port);
  m.acceptor.open(endpoint.protocol(), ec);
  if (!ec) m.acceptor.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) m.acceptor.bind(endpoint, ec);
  if (!ec) m.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return {Code::kUnavailable, "cannot listen on " + m.core.options.host + ":" +
                                    std::to_string(m.core.options.port) + ": " + ec.message()};
  }
  m.port = m.acceptor.local_endpoint().port();
  if (m.core.options.serve_on_start) {
    m.core.handlers_ready = true;
    m.core.state = ServerState::kServing;
  }
  const internal::IoEngineChoice engine =
      internal::ChooseIoEngine(m.core.options.io_engine, m.core.options.tls.has_value(), m.core.io);
  m.core.uring = engine.uring;
  asio::co_spawn(m.accept_strand, m.AcceptLoop(), asio::detached);
  size_t threads = m.core.options.io_threads;
  if (threads == 0) threads = base::UsableCores();
  for (size_t i = 0; i < threads; ++i) {
    m.threads.emplace_back([&io = m.core.io] {
      auto guard = asio::make_work_guard(io);
      internal::MarkBoxcarIoThread();
      io.run();
    });
  }
  {
    base::MutexLock lock(m.stop_mu);
    m.started = true;
  }
  internal::Log(LogLevel::kInfo, "server {} listening on {}:{} ({}, {} I/O threads on {}){}",
                m.name, m.core.options.host, m.port, DescribeServerTls(m.core.options.tls), threads,
                engine.description, m.core.options.serve_on_start ? "" : ", starting");
  return Status::Ok();
}

uint16_t Server::port() const { return impl_->port; }

IoEngine Server::io_engine() const {
  return impl_->core.uring.load() ? IoEngine::kIoUring : IoEngine::kEpoll;
}

Endpoint Server::endpoint() const { return {impl_->core.options.host, impl_->port}; }

const std::string& Server::name() const { return impl_->name; }

void Server::MarkServing() {
  ServerCore& core = impl_->core;
  // Under the stop lock so that a concurrent Stop sees either starting or serving, never undoes.
  base::MutexLock lock(impl_->stop_mu);
  if (impl_->stopped) return;
  core.handlers_ready = true;
  ServerState expected = ServerState::kStarting;
  if (!core.state.compare_exchange_strong(expected, ServerState::kServing)) return;
  internal::Log(LogLevel::kInfo, "server {} serving", impl_->name);
  for (auto& session : core.Sessions()) session->PushState(ServerState::kServing);
}

void Server::EnterLameDuck() {
  ServerState state = impl_->core.state.load();
  while (state == ServerState::kServing || state == ServerState::kStarting) {
    if (impl_->core.state.compare_exchange_weak(state, ServerState::kLameDuck)) break;
  }
  if (state != ServerState::kServing && state != ServerState::kStarting) return;
  internal::Log(LogLevel::kInfo, "server {} entering lame duck", impl_->name);
  for (auto& session : impl_->core.Sessions()) session->PushState(ServerState::kLameDuck);
}

void Server::LeaveLameDuck() {
  ServerCore& core = impl_->core;
  const ServerState back = core.handlers_ready ? ServerState::kServing : ServerState::kStarting;
  ServerState expected = ServerState::kLameDuck;
  if (!core.state.compare_exchange_strong(expected, back)) return;
  internal::Log(LogLevel::kInfo, "server {} leaving lame duck", impl_->name);
  for (auto& session : core.Sessions()) session->PushState(back);
}

Status Server::ReloadTls() {
  ServerCore& core = impl_->core;
  if (!core.options.tls || !core.TlsContext()) {
    return {Code::kFailedPrecondition, "server " + impl_->name + " has no TLS to reload"};
  }
  std::unique_ptr<asio::ssl::context> tls;
  if (Status s = internal::MakeServerTlsContext(*core.options.tls, &tls); !s.ok()) {
    return {s.code(), "server " + impl_->name + ": " + s.message() + "; keeping the loaded one"};
  }
  core.SetTlsContext(std::move(tls));
  internal::Log(LogLevel::kInfo, "server {}: TLS certificate and key reloaded from {}", impl_->name,
                core.options.tls->cert_file);
  return Status::Ok();
}

ServerState Server::state() const { return impl_->core.state.load(); }

void Server::Shutdown(std::chrono::milliseconds grace, std::chrono::milliseconds quiet) {
  using Clock = std::chrono::steady_clock;
  EnterLameDuck();
  ServerCore& core = impl_->core;
  const Clock::time_point began = Clock::now();
  const Clock::time_point give_up = began + grace;
  {
    std::unique_lock lock(core.idle_mu);
    for (;;) {
      const Clock::time_point now = Clock::now();
      if (core.state.load() == ServerState::kStopped) break;
      // Quiet is counted from the later of the drain's start and the latest request's arrival.
      const Clock::time_point last_request{Clock::duration(core.last_request_ns.load())};
      const Clock::time_point quiet_until = std::max(began, last_request) + quiet;
      const bool idle = core.in_flight.load() == 0;
      if (idle && now >= quiet_until) {
        internal::Log(LogLevel::kInfo,
                      "server {}: nothing in flight and no request for {} ms; stopping after {} ms "
                      "of a {} ms grace",
                      impl_->name, quiet.count(),
                      std::chrono::duration_cast<std::chrono::milliseconds>(now - began).count(),
                      grace.count());
        break;
      }
      if (now >= give_up) {
        internal::Log(LogLevel::kWarning,
                      "server {}: grace period over with {} requests still in flight", impl_->name,
                      core.in_flight.load());
        break;
      }
      // Woken early when in_flight drops to zero (OnRequestFinished) or the server stops.
      core.idle_cv.wait_until(lock, idle ? std::min(quiet_until, give_up) : give_up);
    }
  }
  Stop();
}

void Server::Stop() {
  Impl& m = *impl_;
  bool started;
  {
    base::MutexLock lock(m.stop_mu);
    if (m.stopped) return;
    m.stopped = true;
    started = m.started;
  }
  m.core.state = ServerState::kStopped;
  {
    std::lock_guard lock(m.core.idle_mu);
    m.core.idle_cv.notify_all();
  }
  if (started) {
    asio::post(m.accept_strand, [&m] {
      asio::error_code ignored;
      m.acceptor.close(ignored);
    });
    for (auto& session : m.core.Sessions()) session->Close();
  }
  // Handlers still running finish first; their replies go nowhere.
  m.core.workers.join();
  // Let the posted closes run so slots are released and peers see the close now, not at
  // destruction; bounded so a wedged socket cannot hang shutdown.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (started && m.core.session_count() > 0 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  m.core.io.stop();
  for (auto& t : m.threads) t.join();
  m.threads.clear();
  // The posted close may not have run before the stop; no I/O thread is left to race it now, and
  // a listening socket would take connections that nothing answers until ~Server.
  asio::error_code ignored;
  m.acceptor.close(ignored);
  if (started) internal::Log(LogLevel::kInfo, "server {} stopped", m.name);
}

std::vector<SlotInfo> Server::SlotSnapshot() const { return impl_->core.slots.Snapshot(); }

size_t Server::in_flight() const { return impl_->core.in_flight.load(); }

ServerCounters Server::counters() const {
  const ServerCore& c = impl_->core;
  return {c.connections_accepted.load(),
          c.requests.load(),
          c.errors.load(),
          c.protocol_errors.load(),
          c.connections_refused.load(),
          c.timeouts.load(),
          c.tls_handshake_failures.load(),
          c.unauthorized.load(),
          c.refused.load(),
          c.pings.load()};
}

double Server::RefusalsPerSecond() const {
  return impl_->core.refusal_rate.PerSecond(std::chrono::steady_clock::now());
}

LoadReport Server::CurrentLoad() const { return impl_->core.Load(); }

}  // namespace railyard::rpc
