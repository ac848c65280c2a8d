// SPDX-License-Identifier: Apache-2.0
#include "app/railyard-node/systemd_notify.h"

#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

#include <cstdlib>
#include <cstring>
#include <ctime>

SystemdNotifier::SystemdNotifier() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  active_ = socket != nullptr && *socket != '\0';
  uint64_t usec = 0;
  // unset_environment = 0: the node starts no children that could inherit and misuse them.
  if (active_ && sd_watchdog_enabled(0, &usec) > 0) {
    watchdog_period_ = std::chrono::microseconds(usec / 2);
  }
}

void SystemdNotifier::Send(const std::string& message) {
  if (!active_) return;
  if (int r = sd_notify(0, message.c_str()); r < 0) {
    spdlog::warn("sd_notify failed: {}", std::strerror(-r));
  }
}

void SystemdNotifier::Status(const std::string& status, bool serving) {
  {
    std::lock_guard lock(mu_);
    status_ = status;
  }
  const bool first_ready = serving && !ready_.exchange(true);
  Send((first_ready ? "READY=1\nSTATUS=" : "STATUS=") + status);
}

void SystemdNotifier::Reloading() {
  // MONOTONIC_USEC lets systemd 253+ (Type=notify-reload) tie the READY=1 after it to this reload.
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const uint64_t usec = uint64_t(now.tv_sec) * 1000000 + uint64_t(now.tv_nsec) / 1000;
  Send("RELOADING=1\nSTATUS=reloading tokens and TLS files\nMONOTONIC_USEC=" +
       std::to_string(usec));
}

void SystemdNotifier::Reloaded() {
  std::string status;
  {
    std::lock_guard lock(mu_);
    status = status_;
  }
  Send((ready_.load() ? "READY=1\nSTATUS=" : "STATUS=") + status);
}

void SystemdNotifier::Stopping(const std::string& status) { Send("STOPPING=1\nSTATUS=" + status); }

void SystemdNotifier::Watchdog() { Send("WATCHDOG=1"); }
