#pragma once

#include "core/base/status.h"

namespace railyard::rpc {

// rpc's statuses are base's: one type across core/, whose codes mirror the wire's.
using Code = base::StatusCode;
using Status = base::Status;
using base::CodeName;

// True for failures that say nothing about the request itself, only about the server or the
// connection it travelled on: the client disposes of that connection and retries elsewhere.
bool IsRetryable(Code code);

}  // namespace railyard::rpc
