// SPDX-License-Identifier: Apache-2.0
#pragma once

// How many threads this process runs now (/proc/self/task), for tests that a piece of the
// runtime starts no threads of its own, or ends the ones it started.

#include <cstddef>
#include <filesystem>

namespace railyard::testing {

inline size_t ThreadCount() {
  size_t threads = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    (void)entry;
    ++threads;
  }
  return threads;
}

}  // namespace railyard::testing
