// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <string_view>

namespace railyard::rpc {

// How much a line of the Boxcar runtime matters.
enum class LogLevel { kDebug, kInfo, kWarning, kError };

// "debug", "info", "warning" or "error".
std::string_view LogLevelName(LogLevel level);

// Receives each line the Boxcar runtime (servers, clients, signal handling) logs, already
// formatted, without a trailing newline. Called from whichever thread logs (I/O threads, workers,
// the caller's), one call at a time. It must be quick (an I/O thread waits for it), must not
// throw, and must not call back into a Server, a Client or SetLogSink.
using LogSink = std::function<void(LogLevel level, std::string_view line)>;

// Sends the runtime's lines to `sink` from now on, for the whole process; an empty sink restores
// the default, spdlog's default logger (standard error unless the program configured spdlog).
// Thread safety: any thread, at any time. A line being logged while the sink changes goes to the
// old sink or the new one, and once SetLogSink returns, the old sink is never called again, so
// what it refers to may be destroyed.
void SetLogSink(LogSink sink);

}  // namespace railyard::rpc
