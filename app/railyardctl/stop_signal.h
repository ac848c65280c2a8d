// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <thread>

namespace railyard::ctl {

// Sets a flag on SIGINT or SIGTERM (handled on its own thread), so long-running commands can end
// with a clean close and a summary.
class StopSignal {
 public:
  StopSignal() : signals_(io_, SIGINT, SIGTERM) {
    signals_.async_wait([this](const asio::error_code& ec, int) {
      if (!ec) stop_ = true;
    });
    thread_ = std::thread([this] { io_.run(); });
  }
  ~StopSignal() {
    signals_.cancel();
    thread_.join();
  }
  StopSignal(const StopSignal&) = delete;
  StopSignal& operator=(const StopSignal&) = delete;

  bool stopped() const { return stop_; }
  // Sleeps up to `d`, waking early on a signal.
  void SleepFor(std::chrono::milliseconds d) const {
    const auto until = std::chrono::steady_clock::now() + d;
    while (!stop_ && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

 private:
  asio::io_context io_;
  asio::signal_set signals_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

}  // namespace railyard::ctl
