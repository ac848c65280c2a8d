// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: mutexes the thread-safety analysis understands (thread_annotations.h),
// as LevelDB's port::Mutex. std::mutex carries no annotations, so a member RAILYARD_GUARDED_BY one
// could not be checked.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include "storage/thread_annotations.h"

namespace railyard::storage {

class RAILYARD_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  // Lower-case, so that standard lock helpers (std::condition_variable_any) take it too.
  void lock() RAILYARD_ACQUIRE() { mu_.lock(); }
  void unlock() RAILYARD_RELEASE() { mu_.unlock(); }
  bool try_lock() RAILYARD_TRY_ACQUIRE(true) { return mu_.try_lock(); }

 private:
  std::mutex mu_;
};

// A reader-writer mutex: many readers or one writer.
class RAILYARD_CAPABILITY("shared mutex") SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void lock() RAILYARD_ACQUIRE() { mu_.lock(); }
  void unlock() RAILYARD_RELEASE() { mu_.unlock(); }
  void lock_shared() RAILYARD_ACQUIRE_SHARED() { mu_.lock_shared(); }
  void unlock_shared() RAILYARD_RELEASE_SHARED() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

// Holds a Mutex for its scope; Unlock and Lock drop it and take it again within the scope.
class RAILYARD_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) RAILYARD_ACQUIRE(mu) : mu_(mu) { mu_->lock(); }
  // Takes over a Mutex the caller has locked (a try_lock that succeeded).
  MutexLock(Mutex* mu, std::adopt_lock_t) RAILYARD_REQUIRES(mu) : mu_(mu) {}
  ~MutexLock() RAILYARD_RELEASE() {
    if (locked_) mu_->unlock();
  }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void Unlock() RAILYARD_RELEASE() {
    mu_->unlock();
    locked_ = false;
  }
  void Lock() RAILYARD_ACQUIRE() {
    mu_->lock();
    locked_ = true;
  }

 private:
  Mutex* const mu_;
  bool locked_ = true;
};

// Holds a SharedMutex exclusively for its scope.
class RAILYARD_SCOPED_CAPABILITY WriterLock {
 public:
  explicit WriterLock(SharedMutex* mu) RAILYARD_ACQUIRE(mu) : mu_(mu) { mu_->lock(); }
  ~WriterLock() RAILYARD_RELEASE() { mu_->unlock(); }
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// Holds a SharedMutex shared for its scope.
class RAILYARD_SCOPED_CAPABILITY ReaderLock {
 public:
  explicit ReaderLock(SharedMutex* mu) RAILYARD_ACQUIRE_SHARED(mu) : mu_(mu) { mu_->lock_shared(); }
  ~ReaderLock() RAILYARD_RELEASE() { mu_->unlock_shared(); }
  ReaderLock(const ReaderLock&) = delete;
  ReaderLock& operator=(const ReaderLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// A condition variable waited on with a Mutex held. Wake-ups may be spurious: wait in a loop that
// checks the condition.
class CondVar {
 public:
  // Releases `mu` while waiting; holds it again on return.
  void Wait(Mutex& mu) RAILYARD_REQUIRES(mu) { cv_.wait(mu); }
  // As Wait; false once `deadline` has passed.
  bool WaitUntil(Mutex& mu, std::chrono::steady_clock::time_point deadline) RAILYARD_REQUIRES(mu) {
    return cv_.wait_until(mu, deadline) == std::cv_status::no_timeout;
  }
  void NotifyAll() { cv_.notify_all(); }

 private:
  std::condition_variable_any cv_;
};

}  // namespace railyard::storage
