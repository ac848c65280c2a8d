// SPDX-License-Identifier: Apache-2.0
#pragma once

// A lab (railyardctl lab, core/load/lab.h) for the end-to-end tests: up in a temporary folder,
// driven through the real railyardctl, its hosts' telemetry and clients to them, and down (by the
// PIDs recorded, too) when the test ends.

#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/rpc/client.h"
#include "railyard/admin.pb.h"
#include "railyard/lab.pb.h"

namespace railyard::e2e {

class LabFixture {
 public:
  // `railyardctl lab up --replicas N` with `extra` flags; false (with the output logged) if it
  // failed.
  bool Up(int replicas, const QStringList& extra = {});
  // `lab down`, then LabDown by the recorded PIDs in case the command could not; true if the
  // command exited 0 and no namespace of the lab is left.
  bool Down();

  // `railyardctl lab ARGS... --dir DIR`: its exit code, its output in `out`.
  int Lab(const QStringList& args, QString* out = nullptr) const;
  // Re-reads lab.state (PIDs change on restarts).
  bool Reload();
  const lab::State& state() const { return state_; }
  const lab::Host& Host(const std::string& name) const;
  rpc::Endpoint Service(const std::string& name) const;
  rpc::Endpoint Admin(const std::string& name) const;
  std::string dir() const { return dir_; }
  const std::string& viewer_token() const { return viewer_; }
  const std::string& operator_token() const { return operator_; }
  QString ClusterFile() const;

  // The host's telemetry through a fresh admin connection; empty if it did not answer.
  admin::Telemetry TelemetryAt(const std::string& name) const;
  // A replica at the updater's head (tailing) and at least at `position`.
  bool CaughtUp(const std::string& replica, uint64_t position) const;
  // A started client over these hosts' docservices, its pool holding each; null if not in 20 s.
  std::unique_ptr<rpc::Client> ClientOf(const std::vector<std::string>& hosts) const;

 private:
  QTemporaryDir temporary_;
  std::string dir_;
  lab::State state_;
  std::string viewer_, operator_;
};

// doc.Get of one id over and over on a thread of its own, counting answers and failures.
class ReadLoop {
 public:
  ReadLoop(rpc::Client& client, uint64_t id);
  ~ReadLoop();
  void Stop();
  uint64_t ok() const { return ok_; }
  uint64_t failed() const { return failed_; }
  std::string last_failure() const;

 private:
  rpc::Client& client_;
  const uint64_t id_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> ok_{0}, failed_{0};
  mutable std::mutex failure_mu_;
  std::string last_failure_;
  std::thread thread_;
};

}  // namespace railyard::e2e
