// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

namespace railyard::rpc {

// The largest frame (request or answer, payload and envelope) a peer accepts unless its
// ServerOptions or ClientOptions say otherwise; a larger one closes the connection.
inline constexpr uint32_t kDefaultMaxFrameBytes = 16u << 20;

}  // namespace railyard::rpc
