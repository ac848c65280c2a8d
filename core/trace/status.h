// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/base/status.h"

namespace railyard::trace {

// The outcome of a recording operation: base's Status. A failure's message names the recording
// file and, for a SQLite failure, the statement that failed, so an operator can tell which file
// is at fault.
using Status = base::Status;

}  // namespace railyard::trace
