// SPDX-License-Identifier: Apache-2.0
// The "raw-uring" side of rpc_bench: raw's protocol and connection layout (bench/raw_echo.cc: one
// connection per caller, a 4-byte big-endian length and the payload each way, the server echoing
// the frame's bytes as they came), driven by io_uring instead of asio's epoll reactor, to measure
// whether batching the syscalls moves the limit on this machine. No asio.
//
// Threads: the server runs one thread per core and the client `client_threads`, each with its own
// ring (bench/uring_ring.h), and the connections are dealt out among them at start (raw's asio
// server lets any of its threads take any connection). A thread queues every operation its
// completions call for, then submits them all and waits for the next completions in one
// io_uring_enter. A caller whose request ended issues the next one inline on the client thread,
// as in raw; a request issued on another thread (each caller's first) is handed to the
// connection's thread through a queue and the ring's wake eventfd.
//
// Per connection the server keeps one operation outstanding, as raw does: a receive, or the send
// of the whole frames received. The client queues a request's send and the receive of its answer
// together. Every receive asks the kernel to wait for data before trying
// (IORING_RECVSEND_POLL_FIRST): in a closed loop the next frame cannot be there yet when it is
// queued, so trying first would only fail.
#include "bench/raw_uring_echo.h"
#include "bench/raw_frame.h"
#include "core/base/usable_cores.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench/uring_ring.h"

namespace railyard::bench {
namespace {

using raw_frame::kReadBufferBytes;
using raw_frame::WholeFrameBytes;

// An operation's user data: the connection's index in its thread, and which operation.
enum class Op : uint64_t { kReceive = 0, kSend = 1 };
uint64_t UserData(size_t connection, Op op) {
  return (uint64_t{connection} << 1) | static_cast<uint64_t>(op);
}
size_t ConnectionOf(uint64_t user_data) { return static_cast<size_t>(user_data >> 1); }
Op OpOf(uint64_t user_data) { return static_cast<Op>(user_data & 1); }

void QueueReceive(UringRing& ring, int fd, unsigned char* buffer, size_t size, uint64_t data) {
  io_uring_sqe* sqe = ring.NextSqe();
  io_uring_prep_recv(sqe, fd, buffer, size, 0);
  sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;
  io_uring_sqe_set_data64(sqe, data);
}

void QueueSend(UringRing& ring, int fd, const void* bytes, size_t size, uint64_t data) {
  io_uring_sqe* sqe = ring.NextSqe();
  io_uring_prep_send(sqe, fd, bytes, size, MSG_NOSIGNAL);
  io_uring_sqe_set_data64(sqe, data);
}

std::string ErrnoText(int negative_errno) { return std::strerror(-negative_errno); }

// A thread with its own ring, for the server's and the client's threads. The subclass adds its
// connections before Start and handles their completions on the thread.
//
// Thread safety: Start and Stop from one thread (not this one); the rest runs on the thread.
class RingThread {
 public:
  RingThread() = default;
  virtual ~RingThread() = default;
  RingThread(const RingThread&) = delete;
  RingThread& operator=(const RingThread&) = delete;

  // Starts the thread and returns once its ring is set up: 0, or -errno.
  int Start() {
    std::promise<int> ready;
    std::future<int> initialised = ready.get_future();
    thread_ = std::thread([this, ready = std::move(ready)]() mutable { Run(ready); });
    return initialised.get();
  }

  // Ends the thread, cancels what is still outstanding on the ring and closes the connections.
  void Stop() {
    stopping_.store(true, std::memory_order_release);
    if (thread_.joinable()) {
      ring_->Wake();
      thread_.join();
    }
    ring_.reset();
    CloseConnections();
  }

  // The ring's setup flags, once Start returned (also after Stop).
  const std::string& SetupFlags() const { return setup_flags_; }

 protected:
  // On the thread, with the ring set up: queue the first operations.
  virtual void Begin() = 0;
  virtual void OnCompletion(uint64_t data, int res) = 0;
  // On the thread once Stop was asked for: end what is in flight (a bounded wait).
  virtual void Finish() {}
  virtual void OnWake() {}
  virtual unsigned MaxOutstanding() const = 0;
  virtual void CloseConnections() = 0;

  // Submits what is queued, waits for completions and handles them; `timeout` as in UringRing.
  void Turn(__kernel_timespec* timeout = nullptr) {
    const int rc = ring_->SubmitAndWait(
        [this](uint64_t data, int res, unsigned) {
          if (data != UringRing::kWakeData) {
            OnCompletion(data, res);
            return;
          }
          ring_->ArmWake();
          OnWake();
        },
        timeout);
    if (rc < 0 && !failed_) {
      failed_ = true;
      std::fprintf(stderr, "rpc_bench: raw-uring: waiting on the ring failed: %s\n",
                   ErrnoText(rc).c_str());
    }
  }

  bool stopping() const { return stopping_.load(std::memory_order_acquire); }
  bool failed() const { return failed_; }
  UringRing& ring() { return *ring_; }

 private:
  void Run(std::promise<int>& ready) {
    const int rc = ring_->Init(MaxOutstanding());
    setup_flags_ = rc < 0 ? "none" : ring_->SetupFlags();
    ready.set_value(rc);
    if (rc < 0) return;
    ring_->ArmWake();
    Begin();
    while (!stopping() && !failed_) Turn();
    Finish();
  }

  std::optional<UringRing> ring_{std::in_place};
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  bool failed_ = false;      // The thread's own.
  std::string setup_flags_;  // Written by the thread before Start returns.
};

// One server thread: answers every whole frame on its connections with the same bytes.
class ServerThread final : public RingThread {
 public:
  // Before Start; the thread owns `fd` from here on.
  void Add(int fd) { connections_.push_back(std::make_unique<Connection>(fd)); }

 private:
  struct Connection {
    explicit Connection(int socket) : fd(socket) {}
    int fd;
    std::array<unsigned char, kReadBufferBytes> in{};
    size_t filled = 0;     // Bytes received and not yet answered.
    size_t answering = 0;  // Bytes at the start of `in` being sent back.
    size_t sent = 0;       // Of those, sent so far.
  };

  void Begin() override {
    for (size_t i = 0; i < connections_.size(); ++i) AnswerOrReceive(i);
  }

  void OnCompletion(uint64_t data, int res) override {
    // Closed or failed (the client went at Stop): the connection is done; Stop closes it.
    if (res <= 0) return;
    const size_t index = ConnectionOf(data);
    Connection& c = *connections_[index];
    if (OpOf(data) == Op::kReceive) {
      c.filled += static_cast<size_t>(res);
    } else {
      c.sent += static_cast<size_t>(res);
      if (c.sent < c.answering) {
        QueueSend(ring(), c.fd, c.in.data() + c.sent, c.answering - c.sent, data);
        return;
      }
      std::memmove(c.in.data(), c.in.data() + c.answering, c.filled - c.answering);
      c.filled -= c.answering;
      c.answering = 0;
    }
    AnswerOrReceive(index);
  }

  // Sends back the whole frames received, or receives more if there are none.
  void AnswerOrReceive(size_t index) {
    Connection& c = *connections_[index];
    size_t whole = 0;
    while (const size_t frame = WholeFrameBytes(c.in.data() + whole, c.filled - whole)) {
      whole += frame;
    }
    if (whole > 0) {
      c.answering = whole;
      c.sent = 0;
      QueueSend(ring(), c.fd, c.in.data(), whole, UserData(index, Op::kSend));
      return;
    }
    if (c.filled == c.in.size()) return;  // A frame larger than the buffer: not this benchmark's.
    QueueReceive(ring(), c.fd, c.in.data() + c.filled, c.in.size() - c.filled,
                 UserData(index, Op::kReceive));
  }

  unsigned MaxOutstanding() const override { return static_cast<unsigned>(connections_.size()); }

  void CloseConnections() override {
    for (auto& c : connections_) ::close(c->fd);
    connections_.clear();
  }

  std::vector<std::unique_ptr<Connection>> connections_;
};

// The client thread whose Issue is running on this thread, if any.
thread_local const void* current_client_thread = nullptr;

// One client thread: sends its callers' requests and checks the answers.
class ClientThread final : public RingThread {
 public:
  ClientThread(ClosedLoop& loop, const std::string& request) : loop_(loop), request_(request) {}

  // Before Start; the thread owns `fd` from here on. Returns the connection's index for Issue.
  size_t Add(size_t caller, int fd) {
    connections_.push_back(std::make_unique<Connection>(caller, fd));
    return connections_.size() - 1;
  }

  // Sends connection `index`'s request: inline on this thread, else handed over to it. From any
  // thread, once Start returned, for a connection with no request in flight.
  void Issue(size_t index) {
    if (current_client_thread == this) {
      Send(index);
      return;
    }
    {
      std::lock_guard lock(handover_mutex_);
      handed_over_.push_back(index);
    }
    ring().Wake();
  }

 private:
  struct Connection {
    Connection(size_t caller_index, int socket) : caller(caller_index), fd(socket) {}
    const size_t caller;
    int fd;
    std::array<unsigned char, kReadBufferBytes> in{};
    size_t filled = 0;  // Bytes of the answer received.
    size_t sent = 0;    // Bytes of the request sent.
    bool in_flight = false;
    bool broken = false;  // Failed once: every later request fails at once.
  };

  void Begin() override { current_client_thread = this; }

  void OnWake() override {
    std::vector<size_t> issued;
    {
      std::lock_guard lock(handover_mutex_);
      issued.swap(handed_over_);
    }
    for (const size_t index : issued) Send(index);
  }

  void Send(size_t index) {
    Connection& c = *connections_[index];
    c.in_flight = true;
    ++in_flight_;
    if (c.broken) {
      End(index, false);
      return;
    }
    c.filled = 0;
    c.sent = 0;
    QueueSend(ring(), c.fd, request_.data(), request_.size(), UserData(index, Op::kSend));
    QueueReceive(ring(), c.fd, c.in.data(), c.in.size(), UserData(index, Op::kReceive));
  }

  void OnCompletion(uint64_t data, int res) override {
    const size_t index = ConnectionOf(data);
    Connection& c = *connections_[index];
    if (res <= 0) {
      End(index, false);
      return;
    }
    if (OpOf(data) == Op::kSend) {
      c.sent += static_cast<size_t>(res);
      if (c.sent < request_.size()) {
        QueueSend(ring(), c.fd, request_.data() + c.sent, request_.size() - c.sent, data);
      }
      return;
    }
    c.filled += static_cast<size_t>(res);
    const size_t whole = WholeFrameBytes(c.in.data(), c.filled);
    if (whole == 0 && c.filled < c.in.size()) {
      QueueReceive(ring(), c.fd, c.in.data() + c.filled, c.in.size() - c.filled, data);
      return;
    }
    End(index, whole == request_.size() && c.filled == whole &&
                   std::memcmp(c.in.data(), request_.data(), whole) == 0);
  }

  // Ends connection `index`'s request, if one is in flight (a failed send and its receive both
  // end here). A connection that failed, or answered wrongly, stays broken.
  void End(size_t index, bool ok) {
    Connection& c = *connections_[index];
    if (!ok) c.broken = true;
    if (!c.in_flight) return;
    c.in_flight = false;
    --in_flight_;
    loop_.Done(c.caller, ok);  // May issue the caller's next request, inline.
  }

  // Shutting the connections down fails what is in flight (receives end with 0), which ends it.
  void Finish() override {
    for (auto& c : connections_) ::shutdown(c->fd, SHUT_RDWR);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    __kernel_timespec tick{0, 10'000'000};
    while (in_flight_ > 0 && !failed() && std::chrono::steady_clock::now() < give_up) Turn(&tick);
  }

  // A request's send and receive for each connection; the handed-over requests are among them.
  unsigned MaxOutstanding() const override {
    return static_cast<unsigned>(2 * connections_.size());
  }

  void CloseConnections() override {
    for (auto& c : connections_) ::close(c->fd);
    connections_.clear();
  }

  ClosedLoop& loop_;
  const std::string& request_;
  std::vector<std::unique_ptr<Connection>> connections_;
  size_t in_flight_ = 0;  // The thread's own.
  std::mutex handover_mutex_;
  std::vector<size_t> handed_over_;  // Guarded by handover_mutex_.
};

class RawUringEcho final : public EchoSystem {
 public:
  RawUringEcho(ClosedLoop& loop, std::string payload, size_t client_threads)
      : loop_(loop), payload_(std::move(payload)), client_thread_count_(client_threads) {}
  ~RawUringEcho() override { Stop(); }

  rpc::Status Start(size_t concurrency) override {
    request_ = raw_frame::Encode(payload_);

    const size_t server_threads = base::UsableCores();  // As Boxcar's server default.
    for (size_t i = 0; i < server_threads; ++i) {
      servers_.push_back(std::make_unique<ServerThread>());
    }
    for (size_t i = 0; i < std::max<size_t>(1, client_thread_count_); ++i) {
      clients_.push_back(std::make_unique<ClientThread>(loop_, request_));
    }
    if (rpc::Status status = Connect(concurrency); !status.ok()) return status;
    for (auto& server : servers_) {
      if (const int rc = server->Start(); rc < 0) {
        return {rpc::Code::kUnavailable, "raw-uring server: setting up a ring: " + ErrnoText(rc)};
      }
    }
    for (auto& client : clients_) {
      if (const int rc = client->Start(); rc < 0) {
        return {rpc::Code::kUnavailable, "raw-uring client: setting up a ring: " + ErrnoText(rc)};
      }
    }
    return rpc::Status::Ok();
  }

  void Echo(size_t caller) override {
    const auto [client, index] = callers_[caller];
    client->Issue(index);
  }

  void Stop() override {
    // The client first, as in raw: its requests end before the server goes.
    for (auto& client : clients_) client->Stop();
    for (auto& server : servers_) server->Stop();
  }

  std::string Describe() const override {
    const std::string flags = clients_.empty() ? "none" : clients_.front()->SetupFlags();
    return "server: " + std::to_string(servers_.size()) +
           " threads with a ring each, connections dealt out among them, echoing frames; "
           "client: " +
           std::to_string(clients_.size()) +
           " thread(s) with a ring each, one connection per caller; ring flags " + flags +
           ", receives poll first; no asio";
  }

 private:
  // Connects one client socket per caller to a listener on 127.0.0.1 and accepts each at once,
  // dealing both ends out among the threads.
  rpc::Status Connect(size_t concurrency) {
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0) return Failed("raw-uring server: socket", -1);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t address_size = sizeof address;
    if (::bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener, SOMAXCONN) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &address_size) != 0) {
      return Failed("raw-uring server: listening", listener);
    }
    const int one = 1;
    for (size_t caller = 0; caller < concurrency; ++caller) {
      const int client_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (client_fd < 0) return Failed("raw-uring client: socket", listener);
      // Owned by its thread from here on, so that Stop closes it whatever happens next.
      ClientThread& client = *clients_[caller % clients_.size()];
      callers_.emplace_back(&client, client.Add(caller, client_fd));
      if (::connect(client_fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        return Failed("raw-uring client: connecting", listener);
      }
      // The connection is in the listener's backlog already, so this does not wait.
      const int server_fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (server_fd < 0) return Failed("raw-uring server: accepting", listener);
      servers_[caller % servers_.size()]->Add(server_fd);
      ::setsockopt(client_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      ::setsockopt(server_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    ::close(listener);
    return rpc::Status::Ok();
  }

  // The failure in errno, then closes `listener` (if not -1).
  static rpc::Status Failed(const std::string& what, int listener) {
    rpc::Status status{rpc::Code::kUnavailable, what + ": " + std::strerror(errno)};
    if (listener >= 0) ::close(listener);
    return status;
  }

  ClosedLoop& loop_;
  const std::string payload_;
  std::string request_;  // Header and payload, sent unchanged by every call.
  const size_t client_thread_count_;
  std::vector<std::unique_ptr<ServerThread>> servers_;
  std::vector<std::unique_ptr<ClientThread>> clients_;
  std::vector<std::pair<ClientThread*, size_t>> callers_;  // Caller -> its thread and connection.
};

}  // namespace

std::unique_ptr<EchoSystem> MakeRawUringEcho(ClosedLoop& loop, std::string payload,
                                             size_t client_threads) {
  return std::make_unique<RawUringEcho>(loop, std::move(payload), client_threads);
}

std::string RawUringUnavailable() {
  UringRing ring;
  const int rc = ring.Init(1);
  if (rc == 0) return {};
  std::string why = "setting up a ring: " + ErrnoText(rc);
  if (rc == -EPERM || rc == -EACCES) {
    why +=
        " (io_uring refused: sysctl kernel.io_uring_disabled, or a seccomp filter such as a "
        "container's)";
  } else if (rc == -ENOSYS) {
    why += " (this kernel has no io_uring)";
  }
  return why;
}

}  // namespace railyard::bench
