#pragma once

#include <chrono>
#include <memory>
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
  AdminClient(rpc::Endpoint admin, std::string token, std::string client_name = "railyardctl");
  ~AdminClient();

  // Connects; UNAVAILABLE with the reason if the admin service cannot be reached in `timeout`.
  rpc::Status Connect(std::chrono::milliseconds timeout);
  rpc::Status Telemetry(admin::Telemetry* telemetry);
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
