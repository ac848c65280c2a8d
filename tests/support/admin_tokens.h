// SPDX-License-Identifier: Apache-2.0
#pragma once

// The admin tokens of the nodes that tests start in their own temporary folders. One pair for all:
// each test writes them into its own token files, so sharing the text lets no test reach another's
// node (their ports are the OS's own).

namespace railyard::testing {

inline constexpr char kViewerToken[] = "viewer-token-for-tests";
inline constexpr char kOperatorToken[] = "operator-token-for-tests";

}  // namespace railyard::testing
