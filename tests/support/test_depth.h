// SPDX-License-Identifier: Apache-2.0
#pragma once

// How deep a test may go in this build. Under a sanitizer (tests/CMakeLists.txt defines
// RAILYARD_SANITIZED whenever RAILYARD_SANITIZE is set) code runs several times slower, and CI has
// every test finish within a quarter of its timeout on a machine three times slower than usual.
// There, long simulations and loops run shorter: they still drive every code path under the
// sanitizer, which is what that stage proves. Figures that need long runs to settle are checked in
// the release stage only.

#include <algorithm>

namespace railyard::testing {

#ifdef RAILYARD_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// `full` in an ordinary build; `full / divisor`, and at least `floor`, under a sanitizer.
template <typename T>
constexpr T SanitizerScaled(T full, int divisor, T floor) {
  return kSanitized ? std::max(floor, full / divisor) : full;
}

}  // namespace railyard::testing

// QVERIFY2 in the release stage; nothing under a sanitizer, whose shorter runs cannot hold the
// figure (see above). Use only for figures, never for what must hold at any length.
#define RAILYARD_VERIFY_FIGURE(condition, message)                      \
  do {                                                                  \
    if (!::railyard::testing::kSanitized) QVERIFY2(condition, message); \
  } while (false)
