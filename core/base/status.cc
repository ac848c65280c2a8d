// SPDX-License-Identifier: Apache-2.0
#include "core/base/status.h"

namespace railyard::base {

std::string_view CodeName(StatusCode code) {
  using Code = StatusCode;
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
    case Code::kBehind:
      return "BEHIND";
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
    case Code::kNotSupported:
      return "NOT_SUPPORTED";
    case Code::kBusy:
      return "BUSY";
    case Code::kIOError:
      return "IO_ERROR";
    case Code::kWouldWait:
      return "WOULD_WAIT";
    case Code::kApplicationError:
      return "APPLICATION_ERROR";
  }
  return "UNKNOWN_CODE";
}

std::string Status::ToString() const {
  std::string out(CodeName(code_));
  if (!message_.empty()) {
    out += ": ";
    out += message_;
  }
  return out;
}

bool IsFailure(StatusCode code) {
  return code != StatusCode::kOk && code != StatusCode::kNotFound && code != StatusCode::kBehind;
}

}  // namespace railyard::base
