// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace railyard::rpc {

// A server address as operators write it: "127.0.0.1:7000", "[::1]:7000", "localhost:7000".
struct Endpoint {
  std::string host;
  uint16_t port = 0;

  std::string ToString() const;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

// Returns nullopt for anything that is not host:port with a port in 1..65535.
std::optional<Endpoint> ParseEndpoint(std::string_view text);
// As ParseEndpoint, but port 0 (let the OS choose) is allowed: for addresses to listen on.
std::optional<Endpoint> ParseListenAddress(std::string_view text);

// True for a host that only this machine can reach: "localhost", "::1" or 127.0.0.0/8. A
// listener on anything else is reachable from other hosts.
bool IsLoopbackHost(std::string_view host);

}  // namespace railyard::rpc
