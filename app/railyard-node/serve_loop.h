// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <asio.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "app/railyard-node/systemd_notify.h"
#include "core/node/node.h"

// The main thread's loop while the node serves. On SIGTERM or SIGINT the docservice enters lame
// duck, lets requests in flight finish within `grace`, and stops (a second signal stops it at
// once), as rpc::ServeUntilSignalled does.
//
// Meanwhile, if systemd listens, the loop tells it the node's state (READY=1 once it serves,
// STATUS= on each change, STOPPING=1 when the drain starts) and pings its watchdog. The ping comes
// from this loop after a telemetry snapshot, which takes the server's and the store's locks: a
// node deadlocked there, or a loop that no longer runs, stops the pings and systemd restarts it.
//
// Thread safety: construct, Run and destroy on the main thread.
class ServeLoop {
 public:
  // Takes SIGTERM and SIGINT from here on (say LISTEN after this, so that a script's quick SIGTERM
  // drains rather than kills).
  ServeLoop(railyard::node::Node& node, std::chrono::milliseconds grace, SystemdNotifier& notifier);
  ~ServeLoop();
  ServeLoop(const ServeLoop&) = delete;
  ServeLoop& operator=(const ServeLoop&) = delete;

  // Returns once the docservice has stopped.
  void Run();

 private:
  void OnSignal(int signal);
  void Tick();
  void ArmTimer();

  railyard::node::Node& node_;
  const std::chrono::milliseconds grace_;
  SystemdNotifier& notifier_;
  asio::io_context io_;
  asio::signal_set signals_;
  asio::steady_timer timer_;
  std::thread graceful_;
  // Only touched on the loop's thread.
  bool draining_ = false;
  bool stopped_ = false;
  std::string last_status_;
  std::chrono::steady_clock::time_point next_ping_;
};
