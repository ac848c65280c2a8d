// SPDX-License-Identifier: Apache-2.0
#include "core/node/auth_throttle.h"

#include <algorithm>

namespace railyard::node {

using std::chrono::milliseconds;

AuthThrottle::AuthThrottle(Options options) : options_(options) {}

std::string AuthThrottle::HostOf(std::string_view peer) {
  if (!peer.empty() && peer.front() == '[') {
    const size_t close = peer.find(']');
    if (close != std::string_view::npos) return std::string(peer.substr(1, close - 1));
  }
  const size_t colon = peer.rfind(':');
  if (colon != std::string_view::npos && peer.find(':') == colon) {
    return std::string(peer.substr(0, colon));
  }
  return std::string(peer);
}

milliseconds AuthThrottle::LockedFor(std::string_view peer, Clock::time_point now) {
  base::MutexLock lock(mu_);
  const auto it = peers_.find(HostOf(peer));
  if (it == peers_.end() || it->second.locked_until <= now) return milliseconds(0);
  return std::chrono::ceil<milliseconds>(it->second.locked_until - now);
}

milliseconds AuthThrottle::RecordFailure(std::string_view peer, Clock::time_point now) {
  base::MutexLock lock(mu_);
  if (peers_.size() >= options_.max_peers) ForgetQuietPeers(now);
  if (peers_.size() >= options_.max_peers) peers_.clear();  // A flood: start over, stay bounded.
  Record& record = peers_[HostOf(peer)];
  if (now - record.last_failure > options_.forget_after) record.failures = 0;
  record.last_failure = now;
  const int over = ++record.failures - options_.free_failures;
  if (over <= 0) return milliseconds(0);
  const int doublings = std::min(over - 1, 20);
  const milliseconds lockout =
      std::min(options_.max_lockout, options_.first_lockout * (int64_t{1} << doublings));
  record.locked_until = now + lockout;
  return lockout;
}

void AuthThrottle::RecordSuccess(std::string_view peer) {
  base::MutexLock lock(mu_);
  peers_.erase(HostOf(peer));
}

void AuthThrottle::ForgetQuietPeers(Clock::time_point now) {
  std::erase_if(peers_, [&](const auto& entry) {
    return now - entry.second.last_failure > options_.forget_after &&
           entry.second.locked_until <= now;
  });
}

}  // namespace railyard::node
