// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/time_span.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>

namespace railyard::cluster {

bool ParseTimeSpan(std::string_view text, int64_t* ms) {
  const std::string s(text);
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(s, &used);
  } catch (const std::exception&) {
    return false;
  }
  const std::string unit = s.substr(used);
  const double per = unit == "s"   ? 1e3
                     : unit == "m" ? 60e3
                     : unit == "h" ? 3600e3
                     : unit == "d" ? 86400e3
                                   : 0;
  if (per == 0 || !(value > 0) || !std::isfinite(value) || value * per > 1e15) return false;
  *ms = static_cast<int64_t>(value * per);
  return true;
}

bool ParseTimePoint(std::string_view text, int64_t now_ms, int64_t* unix_ms) {
  if (text == "now") {
    *unix_ms = now_ms;
    return true;
  }
  int64_t ago = 0;
  if (ParseTimeSpan(text, &ago)) {
    *unix_ms = now_ms - ago;
    return true;
  }
  const std::string s(text);
  std::tm tm{};
  int consumed = 0;
  char sep = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2d%c%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &sep,
                  &tm.tm_hour, &tm.tm_min, &consumed) != 6 ||
      (sep != 'T' && sep != ' ')) {
    return false;
  }
  std::string rest = s.substr(static_cast<size_t>(consumed));
  if (rest.size() >= 3 && rest[0] == ':') {
    int seconds = 0, n = 0;
    if (std::sscanf(rest.c_str(), ":%2d%n", &seconds, &n) != 1) return false;
    tm.tm_sec = seconds;
    rest = rest.substr(static_cast<size_t>(n));
  }
  if (rest != "Z") return false;  // UTC only: a time without its zone would be a guess.
  if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
      tm.tm_min > 59 || tm.tm_sec > 60) {
    return false;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const time_t t = timegm(&tm);
  if (t == static_cast<time_t>(-1)) return false;
  *unix_ms = static_cast<int64_t>(t) * 1000;
  return true;
}

int64_t UnixMsNow() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace railyard::cluster
