// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/base/mutex.h"
#include "core/node/auth.h"
#include "core/node/auth_throttle.h"
#include "core/node/flight_recorder.h"
#include "core/rpc/server.h"
#include "core/rpc/status.h"
#include "railyard/admin.boxcar.h"

namespace railyard::node {

struct AdminOptions {
  std::string host = "127.0.0.1";  // Loopback unless an operator says otherwise.
  uint16_t port = 0;
  std::string name;  // The process, in logs and audit lines.
  std::vector<std::string> viewer_tokens;
  std::vector<std::string> operator_tokens;
  // Repeated wrong tokens from one host lock it out for a growing time.
  AuthThrottle::Options throttle;
  std::optional<rpc::TlsServerOptions> tls;  // Unset: plain TCP.
  // Set: the service keeps its process's telemetry in a flight recorder (flight_recorder.h),
  // sampled every `interval` with the recent commands, and serves it as admin.History.
  std::optional<FlightRecorderOptions> flight;
};

// A name admin.Snapshot accepts: 1 to 64 of [A-Za-z0-9_.-], not starting with '.' (so neither
// a path nor a hidden or partial folder).
bool IsSnapshotName(std::string_view name);

// What the process behind the admin service can be asked to do. A missing command is answered
// with FAILED_PRECONDITION ("not supported by this process").
struct AdminCommands {
  std::function<rpc::Status()> drain;
  std::function<rpc::Status()> undrain;
  std::function<rpc::Status(const std::vector<uint64_t>& indexes)> compact;
  std::function<rpc::Status()> flush;
  // admin.Locate, for viewers too: fills everything but the id.
  std::function<rpc::Status(uint64_t id, admin::DocLocation* location)> locate;
  // admin.Snapshot, for operators: a snapshot named `name` (IsSnapshotName, checked by the
  // service) of the store, described in `taken`.
  std::function<rpc::Status(const std::string& name, admin::SnapshotTaken* taken)> snapshot;
};

// The admin service on its own Boxcar listener: admin.Telemetry (and, with a flight recorder,
// admin.History, and admin.Locate where there is a store) for viewers and operators, and
// admin.Drain / Undrain / Compact / Flush / Snapshot for operators. With no tokens configured it is
// open: telemetry for any caller, with or without a token, and no commands. Refusals are logged
// (never the token); every command is written as an audit line: who, what, when, result.
//
// Thread safety: Start and Stop from one thread; requests are served concurrently.
class AdminService {
 public:
  AdminService(AdminOptions options, std::function<admin::Telemetry()> telemetry,
               AdminCommands commands);
  ~AdminService();

  rpc::Status Start();
  void Stop();
  // Takes no more flight recorder snapshots (the telemetry function may go away), while
  // admin.History still answers from what was kept.
  void StopRecording();
  rpc::Endpoint endpoint() const { return server_.endpoint(); }
  // Null without AdminOptions::flight, or if it could not be opened (logged).
  const FlightRecorder* flight() const { return flight_.get(); }
  // Reads its TLS files again for new connections (a reload; see rpc::Server::ReloadTls).
  rpc::Status ReloadTls() { return server_.ReloadTls(); }
  // New token lists (a reload); requests checked from now on see them.
  void ReplaceTokens(std::vector<std::string> viewer_tokens,
                     std::vector<std::string> operator_tokens) {
    auth_.Replace(std::move(viewer_tokens), std::move(operator_tokens));
  }

 private:
  class TypedMethods;  // admin.proto's AdminService::Service, calling Handle.

  rpc::Status Handle(const std::string& method, const rpc::CallContext& call,
                     const admin::AdminRequest& request, admin::AdminResponse* response);
  // OK with the caller's role, or why it is refused (a locked-out host, a missing or wrong token).
  rpc::Status Authorize(const std::string& method, std::string_view peer, const std::string& token,
                        const std::string& who, AdminRole* role);
  rpc::Status RunCommand(const std::string& method, const admin::AdminRequest& request,
                         admin::AdminResponse* response);
  // The audit line and the entry among the recent commands that telemetry shows.
  void RecordCommand(const std::string& method, const admin::AdminRequest& request,
                     const std::string& who, AdminRole role, const rpc::Status& result);
  admin::Telemetry TelemetryWithCommands();
  // The flight recorder's sampling thread: a snapshot every interval until Stop.
  void SampleFlight();

  const AdminOptions options_;
  TokenAuthenticator auth_;
  AuthThrottle throttle_;
  const std::function<admin::Telemetry()> telemetry_;
  const AdminCommands commands_;
  base::Mutex recent_mu_;
  std::deque<admin::CommandEvent> recent_ RAILYARD_GUARDED_BY(recent_mu_);
  std::unique_ptr<FlightRecorder> flight_;
  base::Mutex flight_mu_;
  base::CondVar flight_cv_;
  bool flight_stop_ RAILYARD_GUARDED_BY(flight_mu_) = false;
  std::thread flight_thread_;
  rpc::Server server_;
};

}  // namespace railyard::node
