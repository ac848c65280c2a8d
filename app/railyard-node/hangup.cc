// SPDX-License-Identifier: Apache-2.0
#include "app/railyard-node/hangup.h"

#include <spdlog/spdlog.h>

#include <csignal>

HangupHandler::HangupHandler(std::function<void()> on_hangup)
    : on_hangup_(std::move(on_hangup)), io_(1), signals_(io_, SIGHUP) {
  Arm();  // Before the thread starts: from here on SIGHUP is ours, not the default action.
  thread_ = std::thread([this] { io_.run(); });
}

HangupHandler::~HangupHandler() {
  io_.stop();
  thread_.join();
}

void HangupHandler::Arm() {
  signals_.async_wait([this](const asio::error_code& ec, int) {
    if (ec) return;
    spdlog::info("SIGHUP: reloading what can be reloaded");
    on_hangup_();
    Arm();
  });
}
