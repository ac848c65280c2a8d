// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/uring_service.h"

#include <liburing.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "core/rpc/logging.h"

namespace railyard::rpc::internal {

asio::execution_context::id UringService::id;

namespace {

// Room for a receive and a send on each of a busy server's connections; a fuller queue is
// submitted early (Queue), and the completion queue is twice this, with the kernel keeping any
// overflow (IORING_FEAT_NODROP).
constexpr unsigned kEntries = 1024;
// How long shutdown waits for the kernel to confirm the cancellation of what is outstanding.
constexpr std::chrono::seconds kCancelWait{2};

std::string ErrnoText(int error) { return std::strerror(error); }

// Whether this thread runs a Boxcar server's, client's or IoThreads' loop (MarkBoxcarIoThread).
thread_local bool t_boxcar_io_thread = false;

}  // namespace

void MarkBoxcarIoThread() { t_boxcar_io_thread = true; }

struct UringService::Ring {
  explicit Ring(asio::io_context& context) : io(context), wake(context) {}

  // Sets the ring up, or says why not in `reason`.
  void Init();
  // Queues `op`'s entry, prepared by `prep`, and makes sure a flush follows.
  template <typename Prep>
  void Queue(Operation* op, Prep&& prep);
  // Makes sure a flush is on its way. REQUIRES: sq_mu held.
  void ScheduleFlush();
  // Submits what is queued, with the closes asked for since, from an I/O thread only.
  void Flush();
  void ArmWake();
  void OnWake(const asio::error_code& ec);
  // Runs every completion there is.
  void Reap();
  // Advances past every completion in the queue, appending each operation's with its result.
  // REQUIRES: one caller at a time (cq_mu, or shutdown).
  void TakeCompletions(std::vector<std::pair<Operation*, int>>& into);
  void Link(Operation* op);
  void Unlink(Operation* op);
  void Shutdown();

  asio::io_context& io;
  io_uring ring{};
  bool ready = false;
  std::string reason;
  asio::posix::stream_descriptor wake;  // The eventfd the ring signals each completion on.
  uint64_t wake_count = 0;              // Where the outstanding read of `wake` lands.

  std::mutex sq_mu;  // The submission queue, flush_pending, stopping, closes and the list below.
  bool flush_pending = false;
  bool stopping = false;
  // Sockets to close once what was queued before has been submitted (CloseAfterQueued).
  std::vector<int> closes;
  Operation* outstanding = nullptr;  // Queued or in the kernel; doubly linked.

  std::mutex cq_mu;  // One reaper at a time (the wake handler can run on any I/O thread).
  std::vector<std::pair<Operation*, int>> reaped;  // Under cq_mu.
};

void UringService::Ring::Init() {
  io_uring_params params{};
  // SUBMIT_ALL: one bad entry does not hold back the ones after it (5.18). COOP_TASKRUN: the
  // kernel finishes a receive whose data came (task work) when the thread next leaves a system
  // call or sleeps, instead of interrupting it at once; on loopback the interrupt came while the
  // sender still held the socket, and the receive spun on its lock (docs/benchmarks.md).
  params.flags = IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_CLAMP;
  int rc = io_uring_queue_init_params(kEntries, &ring, &params);
  if (rc == -EINVAL) {  // Before 5.19.
    params = {};
    params.flags = IORING_SETUP_CLAMP;
    rc = io_uring_queue_init_params(kEntries, &ring, &params);
  }
  if (rc < 0) {
    reason = "setting up a ring: " + ErrnoText(-rc);
    return;
  }
  if ((params.features & IORING_FEAT_NODROP) == 0 ||
      (params.features & IORING_FEAT_FAST_POLL) == 0) {
    io_uring_queue_exit(&ring);
    reason = "the kernel's io_uring is too old (needs 5.7's fast poll)";
    return;
  }
  const int wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd < 0) {
    reason = "eventfd: " + ErrnoText(errno);
    io_uring_queue_exit(&ring);
    return;
  }
  rc = io_uring_register_eventfd(&ring, wake_fd);
  if (rc < 0) {
    reason = "registering the ring's eventfd: " + ErrnoText(-rc);
    ::close(wake_fd);
    io_uring_queue_exit(&ring);
    return;
  }
  wake.assign(wake_fd);
  ready = true;
  ArmWake();
}

template <typename Prep>
void UringService::Ring::Queue(Operation* op, Prep&& prep) {
  {
    std::lock_guard lock(sq_mu);
    io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    if (sqe == nullptr && t_boxcar_io_thread) {  // Full: what is queued goes now.
      io_uring_submit(&ring);
      sqe = io_uring_get_sqe(&ring);
    }
    if (sqe != nullptr) {
      prep(sqe);
      io_uring_sqe_set_data(sqe, op);
      Link(op);
      ScheduleFlush();
      return;
    }
  }
  // Full, on a thread that may not submit (below): the operation fails rather than wait.
  op->Complete(-EBUSY);
}

void UringService::Ring::ScheduleFlush() {
  if (flush_pending || stopping) return;
  flush_pending = true;
  // Behind the handlers already queued, so the I/O they start goes in the same system call.
  asio::defer(io, [this] { Flush(); });
}

void UringService::Ring::Flush() {
  std::lock_guard lock(sq_mu);
  flush_pending = false;
  // Only the loop's own threads submit. The kernel finishes a receive as work queued to the
  // thread that submitted it, flagged like a signal, and a blocking call with a timeout on that
  // thread (a program's own socket read with SO_RCVTIMEO) then fails with EINTR. A thread that
  // runs the loop only briefly (Client::Stop polls it on the caller's thread) leaves what it
  // queued to the next I/O thread's flush, or to shutdown.
  if (!t_boxcar_io_thread) return;
  const int rc = io_uring_submit(&ring);
  if (rc >= 0) {
    // Everything queued on these sockets is in the kernel now, holding its own reference to the
    // socket: the numbers may go. Closed here rather than by an entry on the ring, so that the
    // close is the C library's, which ThreadSanitizer follows (it cannot see the ring's).
    for (const int fd : closes) ::close(fd);
    closes.clear();
    return;
  }
  if (rc == -EAGAIN || rc == -EBUSY || rc == -EINTR) {  // Short of room, or a signal: next turn.
    flush_pending = true;
    asio::post(io, [this] { Flush(); });
    return;
  }
  Log(LogLevel::kError, "io_uring submit failed: {}", ErrnoText(-rc));
}

void UringService::Ring::ArmWake() {
  // A read, not a wait: asio tries a read at once and, if the count is zero, waits edge-triggered
  // without another epoll_ctl, where a wait would re-arm the descriptor each time.
  wake.async_read_some(asio::buffer(&wake_count, sizeof wake_count),
                       [this](const asio::error_code& ec, size_t) { OnWake(ec); });
}

void UringService::Ring::OnWake(const asio::error_code& ec) {
  if (ec) return;  // Closed at shutdown.
  // Armed again before reaping (the read resets the eventfd's count), so a completion that comes
  // after the reap below wakes the new read.
  ArmWake();
  Reap();
}

void UringService::Ring::Reap() {
  std::vector<std::pair<Operation*, int>> done;
  {
    std::lock_guard reap(cq_mu);
    TakeCompletions(reaped);
    if (reaped.empty()) return;
    done.swap(reaped);
  }
  {
    std::lock_guard lock(sq_mu);
    for (auto& [op, result] : done) Unlink(op);
  }
  for (auto& [op, result] : done) op->Complete(result);
  std::lock_guard reap(cq_mu);
  if (reaped.capacity() < done.capacity()) {  // Keep the larger storage for the next reap.
    done.clear();
    reaped.swap(done);
  }
}

void UringService::Ring::TakeCompletions(std::vector<std::pair<Operation*, int>>& into) {
  unsigned head = 0;
  unsigned seen = 0;
  io_uring_cqe* cqe = nullptr;
  io_uring_for_each_cqe(&ring, head, cqe) {
    ++seen;
    if (auto* op = static_cast<Operation*>(io_uring_cqe_get_data(cqe)))
      into.emplace_back(op, cqe->res);
  }
  io_uring_cq_advance(&ring, seen);
}

void UringService::Ring::Link(Operation* op) {
  op->prev_ = nullptr;
  op->next_ = outstanding;
  if (outstanding != nullptr) outstanding->prev_ = op;
  outstanding = op;
}

void UringService::Ring::Unlink(Operation* op) {
  if (op->prev_ != nullptr) {
    op->prev_->next_ = op->next_;
  } else {
    outstanding = op->next_;
  }
  if (op->next_ != nullptr) op->next_->prev_ = op->prev_;
  op->prev_ = op->next_ = nullptr;
}

void UringService::Ring::Shutdown() {
  std::vector<int> to_close;
  // Destroyed on this thread, as asio destroys its handlers.
  std::vector<std::pair<Operation*, int>> finished;
  {
    std::lock_guard lock(sq_mu);
    stopping = true;
    to_close.swap(closes);
  }
  asio::error_code ignored;
  wake.close(ignored);
  if (ready) {
    // On a thread of its own, which ends here, for the reason the constructor gives: this thread
    // may be a program's main thread in the middle of its own work.
    std::thread([this, &finished] {
      // What was queued but never submitted becomes a no-op: its socket may be closed by now, and
      // this thread must not become the owner of a receive (Flush says why). Its completion then
      // destroys its operation like the others'.
      for (unsigned at = ring.sq.sqe_head; at != ring.sq.sqe_tail; ++at) {
        io_uring_sqe* sqe = &ring.sq.sqes[at & ring.sq.ring_mask];
        const __u64 data = sqe->user_data;
        io_uring_prep_nop(sqe);
        sqe->user_data = data;
      }
      // The kernel must let go of every buffer before the handlers that own them are destroyed:
      // cancel everything and wait for the kernel to confirm each operation.
      if (io_uring_sqe* sqe = io_uring_get_sqe(&ring)) {
        io_uring_prep_cancel(sqe, nullptr, IORING_ASYNC_CANCEL_ANY);
        io_uring_sqe_set_data(sqe, nullptr);
      }
      io_uring_submit(&ring);
      const auto give_up = std::chrono::steady_clock::now() + kCancelWait;
      while (outstanding != nullptr && std::chrono::steady_clock::now() < give_up) {
        __kernel_timespec wait{0, 50'000'000};
        io_uring_cqe* cqe = nullptr;
        const int rc = io_uring_wait_cqe_timeout(&ring, &cqe, &wait);
        if (rc < 0 && rc != -ETIME && rc != -EINTR) break;
        const size_t before = finished.size();
        TakeCompletions(finished);
        for (size_t i = before; i < finished.size(); ++i) Unlink(finished[i].first);
      }
      // Closing the ring cancels whatever did not answer in time.
      io_uring_unregister_eventfd(&ring);
      io_uring_queue_exit(&ring);
      ready = false;
    }).join();
  }
  for (auto& [op, result] : finished) op->Destroy();
  for (const int fd : to_close) ::close(fd);
  while (Operation* op = outstanding) {
    Unlink(op);
    op->Destroy();
  }
}

UringService::UringService(asio::execution_context& context)
    : asio::execution_context::service(context),
      ring_(std::make_unique<Ring>(static_cast<asio::io_context&>(context))) {
  // On a thread of its own, which ends here: the kernel remembers every thread that set up or
  // used a ring, and when the ring goes it flags each one still alive like a signal, so a
  // program's own blocking call with a timeout on the thread that started the server (its main
  // thread, often) would fail with EINTR at some later moment.
  std::thread([this] { ring_->Init(); }).join();
}

UringService::~UringService() = default;

bool UringService::available() const { return ring_->ready; }

const std::string& UringService::unavailable_reason() const { return ring_->reason; }

void UringService::StartReceive(int fd, void* data, size_t size, Operation* op) {
  ring_->Queue(op, [&](io_uring_sqe* sqe) { io_uring_prep_recv(sqe, fd, data, size, 0); });
}

void UringService::StartSend(int fd, const void* data, size_t size, Operation* op) {
  ring_->Queue(op,
               [&](io_uring_sqe* sqe) { io_uring_prep_send(sqe, fd, data, size, MSG_NOSIGNAL); });
}

void UringService::CloseAfterQueued(int fd) {
  std::lock_guard lock(ring_->sq_mu);
  if (ring_->stopping || !ring_->ready) {
    ::close(fd);
    return;
  }
  ring_->closes.push_back(fd);
  ring_->ScheduleFlush();
}

void UringService::shutdown() { ring_->Shutdown(); }

UringService& UringOf(asio::execution_context& context) {
  return asio::use_service<UringService>(context);
}

IoEngineChoice ChooseIoEngine(IoEngine requested, bool tls, asio::execution_context& context) {
  std::string note;
  if (requested == IoEngine::kAuto) {
    requested = IoEngine::kIoUring;
    if (const char* env = std::getenv("RAILYARD_RPC_IO"); env != nullptr && *env != '\0') {
      if (const std::optional<IoEngine> parsed = ParseIoEngine(env);
          parsed && *parsed != IoEngine::kAuto) {
        requested = *parsed;
      } else {
        note = std::string(" (RAILYARD_RPC_IO=") + env + " is neither epoll nor io_uring)";
      }
    }
  }
  if (requested != IoEngine::kIoUring) return {false, "epoll" + note};
  if (tls) return {false, "epoll (TLS connections run on epoll)"};
  const UringService& ring = UringOf(context);
  if (!ring.available()) {
    return {false, "epoll (no io_uring: " + ring.unavailable_reason() + ")", true};
  }
  return {true, "io_uring"};
}

}  // namespace railyard::rpc::internal
