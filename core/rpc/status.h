// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/base/status.h"

namespace railyard::rpc {

// rpc's statuses are base's: one type across core/, whose codes mirror the wire's.
using Code = base::StatusCode;
using Status = base::Status;
using base::CodeName;

// True for failures that say nothing about the request itself, only about the server or the
// connection it travelled on: the client retries elsewhere, and disposes of that connection unless
// the code is BEHIND (a healthy replica that has not applied the asked position yet).
bool IsRetryable(Code code);

}  // namespace railyard::rpc
