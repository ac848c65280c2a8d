// SPDX-License-Identifier: Apache-2.0
#pragma once

// How many threads this process runs now (/proc/self/task), for tests that a piece of the
// runtime starts no threads of its own, or ends the ones it started.

#include <cstddef>
#include <filesystem>

#include "tests/support/wait_until.h"

namespace railyard::testing {

inline size_t ThreadCount() {
  size_t threads = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    (void)entry;
    ++threads;
  }
  return threads;
}

// ThreadCount() once it is `expected`, or as it is when the wait (WaitUntil's default) gives up.
// For a check that threads ended: a joined thread can stay listed for a moment, since the kernel
// wakes the joiner before it takes the task out of the thread group.
inline size_t ThreadCountOnceItIs(size_t expected) {
  WaitUntil([&] { return ThreadCount() == expected; });
  return ThreadCount();
}

}  // namespace railyard::testing
