// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace railyard::ctl {

// Sets a flag on SIGINT or SIGTERM (handled on its own thread), so long-running commands can end
// with a clean close and a summary.
class StopSignal {
 public:
  StopSignal() : signals_(io_, SIGINT, SIGTERM) {
    signals_.async_wait([this](const asio::error_code& ec, int) {
      if (ec) return;
      std::lock_guard lock(mu_);
      stop_ = true;
      woken_.notify_all();
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
  // Sleeps up to `d`, waking at once on a signal (without polling: an idle command sleeps).
  void SleepFor(std::chrono::milliseconds d) const {
    std::unique_lock lock(mu_);
    woken_.wait_for(lock, d, [this] { return stop_.load(); });
  }

 private:
  asio::io_context io_;
  asio::signal_set signals_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;  // With woken_, for SleepFor.
  mutable std::condition_variable woken_;
};

}  // namespace railyard::ctl
