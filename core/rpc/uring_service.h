// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to core/rpc: Boxcar's sockets on io_uring, beside asio's own epoll loop.
//
// One ring per io_context (an asio service). A connection's receives and sends are queued on the
// ring, and everything queued in one turn of the loop goes to the kernel in one io_uring_enter
// (a flush deferred behind the handlers that are ready), so a turn that answers many connections
// makes one system call for their I/O where epoll makes one or two each. The ring tells of
// completions through an eventfd that asio's epoll waits on, so timers, posts, the acceptor and
// TLS connections stay on asio as they are. docs/architecture.md ("Boxcar's I/O engines").

#include <asio.hpp>
#include <cstddef>
#include <memory>
#include <string>

#include "core/rpc/io_engine.h"

namespace railyard::rpc::internal {

// Thread safety: every method from any thread. The service goes with its io_context, after the
// context's threads have stopped; operations still outstanding then are cancelled in the kernel
// and destroyed without running, so whatever their handlers own (a connection and its buffers)
// lives until then.
class UringService : public asio::execution_context::service {
 public:
  static asio::execution_context::id id;

  // One outstanding operation. Exactly one of Complete and Destroy runs, once, and deletes it.
  class Operation {
   public:
    // `result`: what the kernel answered (bytes, or -errno).
    virtual void Complete(int result) = 0;
    // At shutdown: without running the handler.
    virtual void Destroy() = 0;

   protected:
    ~Operation() = default;

   private:
    friend class UringService;
    Operation* prev_ = nullptr;  // The service's list of outstanding operations.
    Operation* next_ = nullptr;
  };

  // REQUIRES: `context` is an asio::io_context.
  explicit UringService(asio::execution_context& context);
  ~UringService() override;
  UringService(const UringService&) = delete;
  UringService& operator=(const UringService&) = delete;

  // Whether the kernel gave this process a ring (io_uring can be disabled by sysctl, by a
  // container's seccomp filter, or missing); if not, why.
  bool available() const;
  const std::string& unavailable_reason() const;

  // Queue a receive into [data, data + size) or a send of it (MSG_NOSIGNAL) on socket `fd`; the
  // kernel's answer goes to `op` (-EBUSY if the queue is full on a thread that may not submit).
  // The buffer and the socket must stay until then.
  // REQUIRES: available().
  void StartReceive(int fd, void* data, size_t size, Operation* op);
  void StartSend(int fd, const void* data, size_t size, Operation* op);
  // Closes `fd` after every operation queued on it so far has reached the kernel (or, at shutdown,
  // been dropped): closing at once could let a new socket take the number before a queued receive
  // is submitted. The caller has shut the socket down first, so those operations end at once.
  void CloseAfterQueued(int fd);

 private:
  struct Ring;

  void shutdown() override;

  std::unique_ptr<Ring> ring_;
};

// Called first on every thread that runs a Boxcar server's, client's or IoThreads' loop: only
// those threads submit to a ring (UringService::Ring::Flush says why).
void MarkBoxcarIoThread();

// The ring of `context`, made on first use. REQUIRES: `context` is an asio::io_context.
UringService& UringOf(asio::execution_context& context);

// What a server's or client's plain connections run on.
struct IoEngineChoice {
  bool uring = false;
  // For the start-up log line: "io_uring", "epoll", or "epoll" with why not io_uring.
  std::string description;
  bool refused = false;  // io_uring was meant, but the kernel gave no ring.
};
// Resolves kAuto (RAILYARD_RPC_IO) and falls back to epoll where `context` gets no ring or the
// connections speak TLS. REQUIRES: `context` is an asio::io_context.
IoEngineChoice ChooseIoEngine(IoEngine requested, bool tls, asio::execution_context& context);

}  // namespace railyard::rpc::internal
