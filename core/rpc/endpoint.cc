// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/endpoint.h"

#include <charconv>

namespace railyard::rpc {

std::string Endpoint::ToString() const {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

std::optional<Endpoint> ParseEndpoint(std::string_view text) {
  std::optional<Endpoint> endpoint = ParseListenAddress(text);
  if (endpoint && endpoint->port == 0) return std::nullopt;
  return endpoint;
}

std::optional<Endpoint> ParseListenAddress(std::string_view text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size())
    return std::nullopt;
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return std::nullopt;
    host = host.substr(1, host.size() - 2);
  }
  unsigned port = 0;
  const auto [end, err] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (err != std::errc() || end != port_text.data() + port_text.size() || port > 65535) {
    return std::nullopt;
  }
  return Endpoint{std::string(host), static_cast<uint16_t>(port)};
}

bool IsLoopbackHost(std::string_view host) {
  return host == "localhost" || host == "::1" || host.substr(0, 4) == "127.";
}

}  // namespace railyard::rpc
