// SPDX-License-Identifier: Apache-2.0
#include "bench/uring_ring.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>

namespace railyard::bench {

UringRing::~UringRing() {
  if (initialised_) io_uring_queue_exit(&ring_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

int UringRing::Init(unsigned max_outstanding) {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC);
  if (wake_fd_ < 0) return -errno;
  // Room for every operation and the wake read in the submission queue, so that NextSqe rarely
  // has to submit early; the completion queue is twice that, so it cannot overflow.
  const unsigned entries = std::bit_ceil(std::max(8u, max_outstanding + 1));
  setup_flags_ = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
  int rc = io_uring_queue_init(entries, &ring_, setup_flags_);
  if (rc == -EINVAL) {  // A kernel before 6.1: plain ring.
    setup_flags_ = 0;
    rc = io_uring_queue_init(entries, &ring_, setup_flags_);
  }
  if (rc < 0) return rc;
  initialised_ = true;
  return 0;
}

io_uring_sqe* UringRing::NextSqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) {
    io_uring_submit(&ring_);
    sqe = io_uring_get_sqe(&ring_);
  }
  return sqe;
}

void UringRing::ArmWake() {
  io_uring_sqe* sqe = NextSqe();
  io_uring_prep_read(sqe, wake_fd_, &wake_value_, sizeof wake_value_, 0);
  io_uring_sqe_set_data64(sqe, kWakeData);
}

void UringRing::Wake() {
  const uint64_t one = 1;
  // Cannot fail short of a counter at its maximum, which a read resets long before.
  [[maybe_unused]] const ssize_t written = ::write(wake_fd_, &one, sizeof one);
}

std::string UringRing::SetupFlags() const {
  return setup_flags_ != 0 ? "SINGLE_ISSUER|DEFER_TASKRUN" : "none";
}

}  // namespace railyard::bench
