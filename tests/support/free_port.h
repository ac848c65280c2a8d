// SPDX-License-Identifier: Apache-2.0
#pragma once

// A loopback port for a program that cannot report the one it bound (Prometheus, a metrics
// listener named in prometheus.yml before it starts). Header-only; needs railyard_asio.

#include <asio.hpp>
#include <cstdint>

namespace railyard::testing {

// A port nothing listens on now: bound by the OS, then let go. Another process may take it
// before the caller does; use an OS-chosen port wherever the program can report it.
inline uint16_t FreePort() {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
  return acceptor.local_endpoint().port();
}

}  // namespace railyard::testing
