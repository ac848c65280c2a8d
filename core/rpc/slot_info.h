// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace railyard::rpc {

// One row of a server's slot table as Server::SlotSnapshot returns it: a live connection, the
// slot it holds (the lowest that was free when it connected), and who holds it.
struct SlotInfo {
  uint32_t slot = 0;
  uint64_t client_id = 0;
  std::string client_name;
  std::string peer;
  std::chrono::system_clock::time_point connected_since;
  uint64_t requests = 0;  // Answered on this connection.
  bool busy = false;      // A request in flight on it now.
};

}  // namespace railyard::rpc
