// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/rpc/client.h"
#include "core/rpc/endpoint.h"
#include "railyard/admin.boxcar.h"

namespace railyard::cluster {

// The commands an operator sends to a node.
enum class AdminCommand { kDrain, kUndrain, kCompact, kFlush };

// "drain", "undrain", "compact", "flush": the names railyardctl and the audit logs use.
const char* AdminCommandName(AdminCommand command);
std::optional<AdminCommand> ParseAdminCommand(std::string_view name);

// Talks to one process's admin service: one function per admin method.
//
// Errors: UNAVAILABLE when the service cannot be reached (with the reason: refused, a TLS
// handshake that failed and why), UNAUTHENTICATED or FAILED_PRECONDITION when the token is
// refused, PROTOCOL_ERROR for a malformed answer.
//
// Thread safety: every method may be called from any thread.
class AdminClient {
 public:
  // `tls` set: the admin service is reached over TLS (problems with its files come from Connect
  // and StartConnecting). `io` set: the client runs on these shared I/O threads rather than one
  // of its own (rpc::ClientOptions::io), and its callbacks with every other client's there.
  AdminClient(rpc::Endpoint admin, std::string token, std::string client_name = "railyardctl",
              std::optional<rpc::TlsClientOptions> tls = std::nullopt,
              std::shared_ptr<rpc::IoThreads> io = nullptr);
  ~AdminClient();

  // Connects; UNAVAILABLE with the reason if the admin service cannot be reached in `timeout`.
  rpc::Status Connect(std::chrono::milliseconds timeout);
  // Starts connecting in the background and returns at once; Connected() tells when it is up.
  // For pollers that must never wait on one unreachable node.
  rpc::Status StartConnecting();
  bool Connected() const;
  // Waits up to `timeout` for the connection StartConnecting began; true once it is up, false
  // at once when the attempt fails (a refused connection is news now, not after `timeout`).
  bool WaitConnected(std::chrono::milliseconds timeout) const;
  // Whether an attempt to connect has failed (the client goes on retrying in the background).
  bool ConnectFailed() const;
  // Why the service is not reachable yet: UNAVAILABLE naming the address and the last connect
  // failure, if any.
  rpc::Status NotConnectedStatus() const;

  // Closes the connection: calls in flight end with CANCELLED, later ones fail. For a thread
  // that must stop another blocked in a call. Idempotent.
  void Cancel();

  rpc::Status Telemetry(admin::Telemetry* telemetry);
  // One page of the node's flight recorder: what it kept from `from_unix_ms` to `to_unix_ms` (0:
  // now), at most about `max_bytes` (0: the node's default). FAILED_PRECONDITION from a process
  // that keeps none. For every page, ask again from history->next_from_unix_ms while
  // history->more(). `timeout` 0: the client's default (5 s).
  rpc::Status History(int64_t from_unix_ms, int64_t to_unix_ms, uint32_t max_bytes,
                      admin::History* history, std::chrono::milliseconds timeout = {});
  // `done` runs on the client's I/O thread (it must not block), exactly once, also when the
  // client is destroyed first (then with CANCELLED).
  using TelemetryCallback = std::function<void(rpc::Status status, admin::Telemetry&& telemetry)>;
  void AsyncTelemetry(TelemetryCallback done, std::chrono::milliseconds timeout);

  rpc::Status Drain(admin::AdminResponse* response);
  rpc::Status Undrain(admin::AdminResponse* response);
  // `indexes`: on-disk indexes to merge (adjacent); empty: all.
  rpc::Status Compact(const std::vector<uint64_t>& indexes, admin::AdminResponse* response);
  rpc::Status Flush(admin::AdminResponse* response);
  // Where the process's store holds document `id` (admin.Locate; a viewer token will do).
  // FAILED_PRECONDITION from a process without a store, or one still opening it.
  rpc::Status Locate(uint64_t id, admin::DocLocation* location);
  // A snapshot of the process's store named `name` (admin.Snapshot, an operator's): made in
  // <data_dir>/snapshots/<name> on its host. INVALID_ARGUMENT for a bad or taken name;
  // FAILED_PRECONDITION from a process without a store. Waits up to `timeout` (0: 120 s: the
  // snapshot flushes the in-memory index and may copy a segment).
  rpc::Status Snapshot(const std::string& name, admin::SnapshotTaken* taken,
                       std::chrono::milliseconds timeout = {});
  // One of the above by name; `indexes` matter to kCompact only.
  rpc::Status Run(AdminCommand command, const std::vector<uint64_t>& indexes,
                  admin::AdminResponse* response);

 private:
  using StubMethod = rpc::CallResult (admin::AdminService::Stub::*)(const admin::AdminRequest&,
                                                                    admin::AdminResponse*,
                                                                    std::chrono::milliseconds);
  rpc::Status Call(StubMethod method, const admin::AdminRequest& request,
                   admin::AdminResponse* response, std::chrono::milliseconds timeout = {});
  admin::AdminRequest Request() const;

  const rpc::Endpoint admin_;
  const std::string token_;
  std::unique_ptr<rpc::Client> client_;
};

}  // namespace railyard::cluster
