#include "core/node/admin_client.h"

namespace railyard::node {

AdminClient::AdminClient(rpc::Endpoint admin, std::string token, std::string client_name)
    : admin_(std::move(admin)), token_(std::move(token)) {
  rpc::ClientOptions options;
  options.servers = {admin_};
  options.pool_size = 2;
  options.max_retries = 1;
  options.client_name = std::move(client_name);
  options.default_timeout = std::chrono::seconds(30);  // Compactions take a while.
  options.connect_timeout = std::chrono::milliseconds(1000);
  options.refill_parallelism = 1;
  client_ = std::make_unique<rpc::Client>(options);
}

AdminClient::~AdminClient() { client_->Stop(); }

rpc::Status AdminClient::Connect(std::chrono::milliseconds timeout) {
  if (rpc::Status s = client_->Start(); !s.ok()) return s;
  if (!client_->WaitForPool(1, timeout)) {
    return {rpc::Code::kUnavailable, "cannot reach the admin service at " + admin_.ToString()};
  }
  return rpc::Status::Ok();
}

rpc::Status AdminClient::Call(const std::string& method, const admin::AdminRequest& request,
                              admin::AdminResponse* response) {
  const rpc::CallResult result = client_->Call(method, request.SerializeAsString());
  if (!result.status.ok()) return result.status;
  if (!response->ParseFromString(result.payload)) {
    return {rpc::Code::kProtocolError, "malformed admin response from " + admin_.ToString()};
  }
  return rpc::Status::Ok();
}

rpc::Status AdminClient::Telemetry(admin::Telemetry* telemetry) {
  admin::AdminRequest request;
  request.set_token(token_);
  admin::AdminResponse response;
  rpc::Status s = Call("admin.Telemetry", request, &response);
  if (s.ok()) *telemetry = std::move(*response.mutable_telemetry());
  return s;
}

rpc::Status AdminClient::Command(const std::string& method, const std::vector<uint64_t>& indexes,
                                 admin::AdminResponse* response) {
  admin::AdminRequest request;
  request.set_token(token_);
  for (uint64_t index : indexes) request.add_indexes(index);
  return Call(method, request, response);
}

}  // namespace railyard::node
