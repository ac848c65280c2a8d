// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/signals.h"

#include <asio.hpp>
#include <csignal>
#include <thread>

#include "core/rpc/logging.h"
#include "core/rpc/server.h"

namespace railyard::rpc {

void ServeUntilSignalled(Server& server, std::chrono::milliseconds grace) {
  asio::io_context io;
  asio::signal_set signals(io, SIGTERM, SIGINT);
  std::thread graceful;
  signals.async_wait([&](const asio::error_code& ec, int signal) {
    if (ec) return;
    internal::Log(LogLevel::kInfo,
                  "signal {}: draining for up to {} ms (send it again to stop at once)", signal,
                  grace.count());
    graceful = std::thread([&] {
      server.Shutdown(grace);
      asio::post(io, [&] { signals.cancel(); });
    });
    signals.async_wait([&](const asio::error_code& again, int second) {
      if (again) return;
      internal::Log(LogLevel::kWarning, "signal {} again: stopping now", second);
      server.Stop();
    });
  });
  io.run();
  if (graceful.joinable()) graceful.join();
}

}  // namespace railyard::rpc
