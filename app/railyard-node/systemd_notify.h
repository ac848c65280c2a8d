// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>

// Tells systemd (a Type=notify unit) how the node is doing, through sd_notify: READY=1 once it
// serves, STATUS= lines for `systemctl status`, RELOADING=1 and READY=1 around a SIGHUP reload,
// STOPPING=1 when the drain starts, and WATCHDOG=1 pings. Every call is a no-op when the process
// was not started with NOTIFY_SOCKET (by hand, by tests, by the console's demo).
//
// Thread safety: every method may be called from any thread.
class SystemdNotifier {
 public:
  SystemdNotifier();
  SystemdNotifier(const SystemdNotifier&) = delete;
  SystemdNotifier& operator=(const SystemdNotifier&) = delete;

  // Whether systemd listens at all; when false, callers may skip work that only feeds it.
  bool active() const { return active_; }
  // How often to send Watchdog(): half of WatchdogSec (sd_watchdog_enabled's interval), or zero
  // when the unit has no watchdog (or the watchdog belongs to another PID).
  std::chrono::microseconds watchdog_period() const { return watchdog_period_; }

  // The node's state for people, e.g. "serving on 127.0.0.1:7000"; READY=1 along with the first
  // one for which `serving` is true.
  void Status(const std::string& status, bool serving);
  // Around a reload: RELOADING=1, then READY=1 with the status from before (READY=1 only if the
  // node had said so already: a reload while starting must not declare it ready).
  void Reloading();
  void Reloaded();
  void Stopping(const std::string& status);
  void Watchdog();

 private:
  void Send(const std::string& message);

  bool active_ = false;
  std::chrono::microseconds watchdog_period_{0};
  std::atomic<bool> ready_{false};
  std::mutex mu_;
  std::string status_;  // Guarded by mu_: the last status, which Reloaded() restores.
};
