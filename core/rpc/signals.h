// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>

namespace railyard::rpc {

class Server;

// Blocks the calling thread while `server` serves. On SIGTERM or SIGINT the server enters lame
// duck, lets in-flight requests finish within `grace`, and stops; a second signal stops it at once.
// Returns once the server has stopped.
void ServeUntilSignalled(Server& server, std::chrono::milliseconds grace);

}  // namespace railyard::rpc
