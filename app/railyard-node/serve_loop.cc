// SPDX-License-Identifier: Apache-2.0
#include "app/railyard-node/serve_loop.h"

#include <spdlog/spdlog.h>

#include <csignal>

namespace {

// How often the loop looks at the node's state: READY=1 reaches systemd at most this late.
constexpr std::chrono::milliseconds kStatePoll{50};

std::string StatusOf(railyard::node::Node& node) {
  switch (node.server().state()) {
    case railyard::rpc::ServerState::kStarting:
      return "starting: opening the store or catching up with the updater";
    case railyard::rpc::ServerState::kServing:
      return "serving on " + node.endpoint().ToString();
    case railyard::rpc::ServerState::kLameDuck:
      return "lame duck (drained): clients move away";
    default:
      return "stopped";
  }
}

}  // namespace

ServeLoop::ServeLoop(railyard::node::Node& node, std::chrono::milliseconds grace,
                     SystemdNotifier& notifier)
    : node_(node),
      grace_(grace),
      notifier_(notifier),
      signals_(io_, SIGTERM, SIGINT),
      timer_(io_) {}

ServeLoop::~ServeLoop() {
  if (graceful_.joinable()) graceful_.join();
}

void ServeLoop::Run() {
  signals_.async_wait([this](const asio::error_code& ec, int signal) {
    if (!ec) OnSignal(signal);
  });
  if (notifier_.active()) Tick();
  io_.run();
  if (graceful_.joinable()) graceful_.join();
}

void ServeLoop::OnSignal(int signal) {
  spdlog::info("signal {}: draining for up to {} ms (send it again to stop at once)", signal,
               grace_.count());
  draining_ = true;
  notifier_.Stopping("draining for up to " + std::to_string(grace_.count()) + " ms");
  graceful_ = std::thread([this] {
    node_.server().Shutdown(grace_);
    asio::post(io_, [this] {
      stopped_ = true;  // A tick already due must not arm the timer again.
      signals_.cancel();
      timer_.cancel();
    });
  });
  signals_.async_wait([this](const asio::error_code& again, int second) {
    if (again) return;
    spdlog::warn("signal {} again: stopping now", second);
    node_.server().Stop();
  });
}

void ServeLoop::Tick() {
  if (stopped_) return;
  if (!draining_) {
    if (std::string status = StatusOf(node_); status != last_status_) {
      notifier_.Status(status, node_.server().state() == railyard::rpc::ServerState::kServing);
      last_status_ = std::move(status);
    }
  }
  if (notifier_.watchdog_period().count() > 0 && std::chrono::steady_clock::now() >= next_ping_) {
    node_.Snapshot();  // Blocks, and so withholds the ping, if the node is stuck on its locks.
    notifier_.Watchdog();
    next_ping_ = std::chrono::steady_clock::now() + notifier_.watchdog_period();
  }
  ArmTimer();
}

void ServeLoop::ArmTimer() {
  timer_.expires_after(kStatePoll);
  timer_.async_wait([this](const asio::error_code& ec) {
    if (!ec) Tick();
  });
}
