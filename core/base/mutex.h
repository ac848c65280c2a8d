// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "core/base/thread_annotations.h"

namespace railyard::base {

// A std::mutex that clang's thread-safety analysis knows as a capability, so members can be
// RAILYARD_GUARDED_BY it and functions can RAILYARD_REQUIRES it. Not recursive. Prefer MutexLock to
// Lock/Unlock.
class RAILYARD_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() RAILYARD_ACQUIRE() { mu_.lock(); }
  void Unlock() RAILYARD_RELEASE() { mu_.unlock(); }
  bool TryLock() RAILYARD_TRY_ACQUIRE(true) { return mu_.try_lock(); }

  // Tells the analysis that the caller holds this mutex where it cannot see so (a callback run
  // with the lock held). Checks nothing at run time: std::mutex does not know its owner.
  void AssertHeld() const RAILYARD_ASSERT_CAPABILITY(this) {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds `mu` from construction to the end of the scope, like std::lock_guard.
class RAILYARD_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) RAILYARD_ACQUIRE(mu) : mu_(mu) { mu_.Lock(); }
  ~MutexLock() RAILYARD_RELEASE() { mu_.Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mu_;
};

// A condition variable for base::Mutex. Every wait requires the mutex held, releases it while
// blocked and holds it again on return; wake-ups may be spurious, so wait in a loop on the
// condition:
//
//   base::MutexLock lock(mu_);
//   while (!ready_) ready_cv_.Wait(mu_);
//
// (A predicate overload would hide the guarded reads in a lambda the analysis checks apart.)
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  void Wait(Mutex& mu) RAILYARD_REQUIRES(mu);
  // Returns false if `deadline` passed before a notification (or a spurious wake-up).
  bool WaitUntil(Mutex& mu, std::chrono::steady_clock::time_point deadline) RAILYARD_REQUIRES(mu);

  void NotifyOne() { cv_.notify_one(); }
  void NotifyAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace railyard::base
