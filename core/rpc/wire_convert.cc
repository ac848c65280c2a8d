// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/wire_convert.h"

namespace railyard::rpc::internal {

wire::ServerState ToWire(ServerState state) {
  switch (state) {
    case ServerState::kStarting:
      return wire::SERVER_STARTING;
    case ServerState::kServing:
      return wire::SERVER_SERVING;
    case ServerState::kLameDuck:
    case ServerState::kStopped:
      return wire::SERVER_LAME_DUCK;
  }
  return wire::SERVER_STATE_UNSPECIFIED;
}

ServerState FromWire(wire::ServerState state) {
  switch (state) {
    case wire::SERVER_SERVING:
      return ServerState::kServing;
    case wire::SERVER_LAME_DUCK:
      return ServerState::kLameDuck;
    default:
      return ServerState::kStarting;
  }
}

}  // namespace railyard::rpc::internal
