#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/rpc/client.h"
#include "core/rpc/endpoint.h"
#include "railyard/admin.pb.h"

namespace railyard::node {

// Talks to one process's admin service.
//
// Thread safety: every method may be called from any thread.
class AdminClient {
 public:
  // `tls` set: the admin service is reached over TLS (errors in its files come from Connect and
  // StartConnecting).
  AdminClient(rpc::Endpoint admin, std::string token, std::string client_name = "railyardctl",
              std::optional<rpc::TlsClientOptions> tls = std::nullopt);
  ~AdminClient();

  // Connects; UNAVAILABLE with the reason if the admin service cannot be reached in `timeout`.
  rpc::Status Connect(std::chrono::milliseconds timeout);
  // Starts connecting in the background and returns at once; Connected() tells when it is up.
  // For pollers that must never wait on one unreachable node.
  rpc::Status StartConnecting();
  bool Connected() const;
  rpc::Status Telemetry(admin::Telemetry* telemetry);
  // `done` runs on the client's I/O thread (it must not block), exactly once, also when the
  // client is destroyed first (then with CANCELLED).
  using TelemetryCallback = std::function<void(rpc::Status status, admin::Telemetry&& telemetry)>;
  void AsyncTelemetry(TelemetryCallback done, std::chrono::milliseconds timeout);
  // method: admin.Drain, admin.Undrain, admin.Compact, admin.Flush.
  rpc::Status Command(const std::string& method, const std::vector<uint64_t>& indexes,
                      admin::AdminResponse* response);

 private:
  rpc::Status Call(const std::string& method, const admin::AdminRequest& request,
                   admin::AdminResponse* response);

  const rpc::Endpoint admin_;
  const std::string token_;
  std::unique_ptr<rpc::Client> client_;
};

}  // namespace railyard::node
