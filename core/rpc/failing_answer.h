// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/balance/policy.h"
#include "core/rpc/balanced_selection.h"
#include "core/rpc/status.h"

namespace railyard::rpc {

// How an answer counts for its connection's balance::AnswerHealth (the sinkhole rule): as the
// policies count it (ToBalanceResult), except that answers about the request or the caller
// (UNKNOWN_METHOD, UNAUTHENTICATED) count for nothing: another connection would get the same
// answer, and replacing connections would only hand a token guesser fresh ones.
inline balance::Result AnswerHealthResult(Code code) {
  if (code == Code::kUnknownMethod || code == Code::kUnauthenticated) {
    return balance::Result::kIgnored;
  }
  return ToBalanceResult(code);
}

}  // namespace railyard::rpc
