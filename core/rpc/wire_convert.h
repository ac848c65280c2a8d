// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to core/rpc: conversions between the wire enums and the C++ API.

#include "core/rpc/server.h"
#include "railyard/rpc.pb.h"

namespace railyard::rpc::internal {

wire::ServerState ToWire(ServerState state);
ServerState FromWire(wire::ServerState state);

}  // namespace railyard::rpc::internal
