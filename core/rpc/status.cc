#include "core/rpc/status.h"

#include "railyard/rpc.pb.h"

namespace railyard::rpc {

// The wire enum and ours must agree number for number.
static_assert(static_cast<int>(Code::kUnavailable) == wire::StatusCode::UNAVAILABLE);
static_assert(static_cast<int>(Code::kLameDuck) == wire::StatusCode::LAME_DUCK);
static_assert(static_cast<int>(Code::kDeadlineExceeded) == wire::StatusCode::DEADLINE_EXCEEDED);
static_assert(static_cast<int>(Code::kPoolExhausted) == wire::StatusCode::POOL_EXHAUSTED);
static_assert(static_cast<int>(Code::kUnknownMethod) == wire::StatusCode::UNKNOWN_METHOD);
static_assert(static_cast<int>(Code::kProtocolError) == wire::StatusCode::PROTOCOL_ERROR);
static_assert(static_cast<int>(Code::kUnauthenticated) == wire::StatusCode::UNAUTHENTICATED);
static_assert(static_cast<int>(Code::kInternal) == wire::StatusCode::INTERNAL);
static_assert(static_cast<int>(Code::kCancelled) == wire::StatusCode::CANCELLED);
static_assert(static_cast<int>(Code::kInvalidArgument) == wire::StatusCode::INVALID_ARGUMENT);
static_assert(static_cast<int>(Code::kNotFound) == wire::StatusCode::NOT_FOUND);
static_assert(static_cast<int>(Code::kFailedPrecondition) == wire::StatusCode::FAILED_PRECONDITION);
static_assert(static_cast<int>(Code::kCorrupted) == wire::StatusCode::CORRUPTED);
static_assert(static_cast<int>(Code::kResourceExhausted) == wire::StatusCode::RESOURCE_EXHAUSTED);
static_assert(static_cast<int>(Code::kApplicationError) == wire::StatusCode::APPLICATION_ERROR);

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "OK";
    case Code::kUnavailable:
      return "UNAVAILABLE";
    case Code::kLameDuck:
      return "LAME_DUCK";
    case Code::kDeadlineExceeded:
      return "DEADLINE_EXCEEDED";
    case Code::kPoolExhausted:
      return "POOL_EXHAUSTED";
    case Code::kUnknownMethod:
      return "UNKNOWN_METHOD";
    case Code::kProtocolError:
      return "PROTOCOL_ERROR";
    case Code::kUnauthenticated:
      return "UNAUTHENTICATED";
    case Code::kInternal:
      return "INTERNAL";
    case Code::kCancelled:
      return "CANCELLED";
    case Code::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case Code::kNotFound:
      return "NOT_FOUND";
    case Code::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case Code::kCorrupted:
      return "CORRUPTED";
    case Code::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case Code::kApplicationError:
      return "APPLICATION_ERROR";
  }
  return "UNKNOWN_CODE";
}

bool IsRetryable(Code code) { return code == Code::kUnavailable || code == Code::kLameDuck; }

std::string Status::ToString() const {
  std::string out(CodeName(code_));
  if (!message_.empty()) {
    out += ": ";
    out += message_;
  }
  return out;
}

}  // namespace railyard::rpc
