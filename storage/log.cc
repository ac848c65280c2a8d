// SPDX-License-Identifier: Apache-2.0
#include "storage/log.h"

#include <cstdio>

namespace railyard::storage {

void LogTo(const Options& options, LogLevel level, std::string_view message) {
  if (options.logger) {
    options.logger(level, message);
    return;
  }
  const char* tag = level == LogLevel::kError     ? "error"
                    : level == LogLevel::kWarning ? "warning"
                                                  : "info";
  std::fprintf(stderr, "docstore %s: %.*s\n", tag, static_cast<int>(message.size()),
               message.data());
}

}  // namespace railyard::storage
