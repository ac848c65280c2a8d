// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: routing messages to Options::logger, or stderr when none is set.

#include <string_view>

#include "storage/options.h"

namespace railyard::storage {

void LogTo(const Options& options, LogLevel level, std::string_view message);

}  // namespace railyard::storage
