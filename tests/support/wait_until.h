// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one way tests wait: for a condition, under a deadline, never for a fixed time. Header-only.

#include <chrono>
#include <functional>
#include <thread>

namespace railyard::testing {

// Polls `condition` every `every` until it holds or `timeout` passes; returns its last value.
// Blocks the calling thread (no Qt events are processed meanwhile). Poll a condition that talks
// to another process (an RPC, a file) less often than one that reads memory.
inline bool WaitUntil(const std::function<bool()>& condition,
                      std::chrono::milliseconds timeout = std::chrono::seconds(10),
                      std::chrono::milliseconds every = std::chrono::milliseconds(2)) {
  const auto give_up = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= give_up) return condition();
    std::this_thread::sleep_for(every);
  }
  return true;
}

}  // namespace railyard::testing
