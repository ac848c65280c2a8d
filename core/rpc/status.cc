// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/status.h"

#include "railyard/rpc.pb.h"

namespace railyard::rpc {

// The wire enum and base::StatusCode must agree number for number (base's local codes 105-107
// have no wire name).
static_assert(static_cast<int>(Code::kUnavailable) == wire::StatusCode::UNAVAILABLE);
static_assert(static_cast<int>(Code::kLameDuck) == wire::StatusCode::LAME_DUCK);
static_assert(static_cast<int>(Code::kDeadlineExceeded) == wire::StatusCode::DEADLINE_EXCEEDED);
static_assert(static_cast<int>(Code::kPoolExhausted) == wire::StatusCode::POOL_EXHAUSTED);
static_assert(static_cast<int>(Code::kUnknownMethod) == wire::StatusCode::UNKNOWN_METHOD);
static_assert(static_cast<int>(Code::kProtocolError) == wire::StatusCode::PROTOCOL_ERROR);
static_assert(static_cast<int>(Code::kUnauthenticated) == wire::StatusCode::UNAUTHENTICATED);
static_assert(static_cast<int>(Code::kInternal) == wire::StatusCode::INTERNAL);
static_assert(static_cast<int>(Code::kCancelled) == wire::StatusCode::CANCELLED);
static_assert(static_cast<int>(Code::kBehind) == wire::StatusCode::BEHIND);
static_assert(static_cast<int>(Code::kInvalidArgument) == wire::StatusCode::INVALID_ARGUMENT);
static_assert(static_cast<int>(Code::kNotFound) == wire::StatusCode::NOT_FOUND);
static_assert(static_cast<int>(Code::kFailedPrecondition) == wire::StatusCode::FAILED_PRECONDITION);
static_assert(static_cast<int>(Code::kCorrupted) == wire::StatusCode::CORRUPTED);
static_assert(static_cast<int>(Code::kResourceExhausted) == wire::StatusCode::RESOURCE_EXHAUSTED);
static_assert(static_cast<int>(Code::kApplicationError) == wire::StatusCode::APPLICATION_ERROR);

bool IsRetryable(Code code) {
  return code == Code::kUnavailable || code == Code::kLameDuck || code == Code::kBehind;
}

}  // namespace railyard::rpc
