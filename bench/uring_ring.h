// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <liburing.h>

#include <cerrno>
#include <cstdint>
#include <string>

namespace railyard::bench {

// One io_uring driven by one thread, for rpc_bench's raw-uring system (bench/raw_uring_echo.cc).
// The owning thread queues operations (NextSqe), then submits them and waits for completions in
// one io_uring_enter (SubmitAndWait). Where the kernel has them (6.1+), the ring is set up with
// IORING_SETUP_SINGLE_ISSUER and IORING_SETUP_DEFER_TASKRUN: completions are worked off only
// while the owner waits, so nothing interrupts it between two waits.
//
// Thread safety: Init, NextSqe, ArmWake and SubmitAndWait on the owning thread only (the one that
// called Init). Wake from any thread once Init has returned 0. The destructor after the owning
// thread has stopped using the ring; it cancels whatever is still outstanding, so the buffers of
// those operations must outlive it.
class UringRing {
 public:
  // The user data of the wake read's completion; never an operation's own.
  static constexpr uint64_t kWakeData = ~uint64_t{0};

  UringRing() = default;
  ~UringRing();
  UringRing(const UringRing&) = delete;
  UringRing& operator=(const UringRing&) = delete;

  // Sets the ring up for at most `max_outstanding` operations at once besides the wake read.
  // Returns 0, or -errno (io_uring disabled, out of memory, ...).
  int Init(unsigned max_outstanding);

  // A free submission entry, to be filled and given user data. Never null while no more than
  // `max_outstanding` operations are outstanding: if the queue is full, submits it first.
  io_uring_sqe* NextSqe();

  // Queues a read of the wake eventfd; its completion (user data kWakeData) follows the next Wake.
  // Re-arm it after each such completion.
  void ArmWake();
  // From any thread: completes the armed wake read, so that the owner leaves its wait.
  void Wake();

  // Submits everything queued and waits for at least one completion, or `timeout` (null: no
  // limit), then calls on_completion(user_data, res, flags) for each completion there is, in order.
  // on_completion may queue new operations. Returns 0, or -errno if the wait failed for another
  // reason than the timeout or a signal.
  template <typename OnCompletion>
  int SubmitAndWait(OnCompletion&& on_completion, __kernel_timespec* timeout = nullptr) {
    io_uring_cqe* cqe = nullptr;
    const int rc = timeout != nullptr
                       ? io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, timeout, nullptr)
                       : io_uring_submit_and_wait(&ring_, 1);
    if (rc < 0 && rc != -ETIME && rc != -EINTR) return rc;
    unsigned head = 0;
    unsigned seen = 0;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      on_completion(cqe->user_data, cqe->res, cqe->flags);
      ++seen;
    }
    io_uring_cq_advance(&ring_, seen);
    return 0;
  }

  // The setup flags the kernel accepted, for diagnostics ("SINGLE_ISSUER|DEFER_TASKRUN" or "none").
  std::string SetupFlags() const;

 private:
  io_uring ring_{};
  bool initialised_ = false;
  unsigned setup_flags_ = 0;
  int wake_fd_ = -1;
  uint64_t wake_value_ = 0;  // Where the wake read lands.
};

}  // namespace railyard::bench
