// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/base/mutex.h"

namespace railyard::node {

// Slows down token guessing: after a few failed attempts, a peer host is locked out for a while,
// and each further failure doubles the lockout (up to a cap). While locked out, its requests are
// refused without looking at the token at all, so guessing costs time whatever the guess. A
// success clears the peer's record.
//
// Thread safety: all methods may be called concurrently.
class AuthThrottle {
 public:
  using Clock = std::chrono::steady_clock;
  struct Options {
    int free_failures = 5;  // Failures allowed before the first lockout.
    std::chrono::milliseconds first_lockout{1000};
    std::chrono::milliseconds max_lockout{60000};
    std::chrono::milliseconds forget_after{std::chrono::minutes(10)};  // Of a quiet peer.
    size_t max_peers = 10000;  // Bounded memory under a flood of distinct addresses.
  };

  AuthThrottle() : AuthThrottle(Options{}) {}
  explicit AuthThrottle(Options options);

  // Zero if `peer` may try now; otherwise how long it must wait.
  std::chrono::milliseconds LockedFor(std::string_view peer, Clock::time_point now);
  // Returns the lockout this failure leaves the peer's host under (zero: none yet), so the caller
  // can say so once, where it happens.
  std::chrono::milliseconds RecordFailure(std::string_view peer, Clock::time_point now);
  void RecordSuccess(std::string_view peer);

  // "10.1.2.3:5555" -> "10.1.2.3", "[::1]:5555" -> "::1": lockouts apply to a host, not a port.
  static std::string HostOf(std::string_view peer);

 private:
  struct Record {
    int failures = 0;
    Clock::time_point locked_until{};
    Clock::time_point last_failure{};
  };
  void ForgetQuietPeers(Clock::time_point now) RAILYARD_REQUIRES(mu_);

  const Options options_;
  base::Mutex mu_;
  std::unordered_map<std::string, Record> peers_ RAILYARD_GUARDED_BY(mu_);
};

}  // namespace railyard::node
