// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <asio.hpp>
#include <functional>
#include <thread>

// Runs `on_hangup` on its own thread each time the process gets SIGHUP, from construction until
// destruction. Without it SIGHUP's default action would end the node at once, without draining.
// Separate from SIGTERM and SIGINT (core/rpc/signals.h), which stop the node.
//
// Thread safety: construct and destroy on one thread; `on_hangup` runs on the handler's thread,
// one call at a time.
class HangupHandler {
 public:
  explicit HangupHandler(std::function<void()> on_hangup);
  ~HangupHandler();
  HangupHandler(const HangupHandler&) = delete;
  HangupHandler& operator=(const HangupHandler&) = delete;

 private:
  void Arm();

  const std::function<void()> on_hangup_;
  asio::io_context io_;
  asio::signal_set signals_;
  std::thread thread_;
};
