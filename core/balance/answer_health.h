// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

#include "core/balance/policy.h"

namespace railyard::balance {

// Boxcar's remedy for a sinkhole: a connection whose answers keep failing is disposed of, so that
// the next request rides the next best connection and the acquirer refills the pool from a random
// server. Transport errors and UNAVAILABLE already dispose of a connection on the first failure;
// this covers a server that answers fast errors on a connection it keeps open ("I'm unhealthy!",
// the SRE chapter's sinkhole), which would otherwise keep its low slots and draw traffic forever.
//
// The rule: `limit` consecutive answers that count as the server's errors (Result::kError) mark the
// connection sick. Consecutive, because a healthy server with an error share e trips it only
// e^limit of the time (3 and 10% errors: once per 1000 answers, cheap churn), while a sinkhole
// trips it within `limit` answers. A success clears the count; rejections and application errors
// (kRejected, kIgnored: nothing about the server's health) and timeouts (disposed of anyway) leave
// it as it is.
//
// One per connection; the simulator's connections use the same class, so it measures this rule.
// Thread safety: none; a connection carries one request at a time, and its owner records each
// answer once.
class AnswerHealth {
 public:
  static constexpr uint32_t kDefaultLimit = 3;

  AnswerHealth() = default;
  explicit AnswerHealth(uint32_t limit) : limit_(limit) {}

  // Records one answer; true when the connection should be disposed of (and stays true until a
  // success clears the count).
  bool Record(Result result);

  uint32_t consecutive_errors() const { return consecutive_errors_; }
  uint32_t limit() const { return limit_; }

 private:
  uint32_t limit_ = kDefaultLimit;
  uint32_t consecutive_errors_ = 0;
};

}  // namespace railyard::balance
