// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to core/rpc (not installed): how the runtime's .cc files log, through the sink a
// program may set (log_sink.h) or else spdlog's default logger.

#include <spdlog/spdlog.h>

#include <string>
#include <utility>

#include "core/rpc/log_sink.h"

namespace railyard::rpc::internal {

// True once a program has set a sink of its own. Thread safety: any thread.
bool HasLogSink();
// Passes `line` to the program's sink, if one is still set (else to spdlog). Thread safety: any.
void LogToSink(LogLevel level, std::string_view line);

spdlog::level::level_enum SpdlogLevel(LogLevel level);

// Formats and logs one line. Without a sink of the program's, spdlog formats it (and skips it
// when its level is off), exactly as before sinks existed.
template <typename... Args>
void Log(LogLevel level, spdlog::format_string_t<Args...> format, Args&&... args) {
  if (!HasLogSink()) {
    spdlog::log(SpdlogLevel(level), format, std::forward<Args>(args)...);
    return;
  }
  LogToSink(level, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace railyard::rpc::internal
