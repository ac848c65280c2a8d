// SPDX-License-Identifier: Apache-2.0
#include "core/base/mutex.h"

namespace railyard::base {

// std::condition_variable waits on a std::unique_lock; borrow the held mutex for the wait and
// hand it back still held, so the caller's MutexLock stays the owner.
void CondVar::Wait(Mutex& mu) {
  std::unique_lock<std::mutex> lock(mu.mu_, std::adopt_lock);
  cv_.wait(lock);
  lock.release();
}

bool CondVar::WaitUntil(Mutex& mu, std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu.mu_, std::adopt_lock);
  const std::cv_status status = cv_.wait_until(lock, deadline);
  lock.release();
  return status == std::cv_status::no_timeout;
}

}  // namespace railyard::base
