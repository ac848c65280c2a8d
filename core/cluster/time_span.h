// SPDX-License-Identifier: Apache-2.0
#pragma once

// The times railyardctl and the console take on their command lines: spans ("90s", "15m", "1h",
// "2d") and instants (an RFC 3339 UTC time, or a span meaning that long ago).

#include <cstdint>
#include <string_view>

namespace railyard::cluster {

// A positive number with a unit s, m, h or d ("1.5h"), in milliseconds; false for anything else.
bool ParseTimeSpan(std::string_view text, int64_t* ms);

// An instant in Unix milliseconds: "now", a span ago ("30m": `now_ms` less 30 minutes), or a UTC
// time "2026-11-29T03:10:00Z" (seconds optional, "T" or a space); false for anything else.
bool ParseTimePoint(std::string_view text, int64_t now_ms, int64_t* unix_ms);

// Unix milliseconds now, from the system clock.
int64_t UnixMsNow();

}  // namespace railyard::cluster
