#include "core/node/admin_client.h"

namespace railyard::node {

AdminClient::AdminClient(rpc::Endpoint admin, std::string token, std::string client_name,
                         std::optional<rpc::TlsClientOptions> tls)
    : admin_(std::move(admin)), token_(std::move(token)) {
  rpc::ClientOptions options;
  options.servers = {admin_};
  options.pool_size = 2;
  options.max_retries = 1;
  options.client_name = std::move(client_name);
  options.default_timeout = std::chrono::seconds(30);  // Compactions take a while.
  options.connect_timeout = std::chrono::milliseconds(1000);
  options.refill_parallelism = 1;
  options.tls = std::move(tls);
  client_ = std::make_unique<rpc::Client>(options);
}

AdminClient::~AdminClient() { client_->Stop(); }

rpc::Status AdminClient::Connect(std::chrono::milliseconds timeout) {
  if (rpc::Status s = client_->Start(); !s.ok()) return s;
  if (!client_->WaitForPool(1, timeout)) {
    const std::string why = client_->Snapshot().last_connect_failure;
    return {rpc::Code::kUnavailable, "cannot reach the admin service at " + admin_.ToString() +
                                         (why.empty() ? std::string() : " (" + why + ")")};
  }
  return rpc::Status::Ok();
}

rpc::Status AdminClient::StartConnecting() { return client_->Start(); }

bool AdminClient::Connected() const {
  return client_->WaitForPool(1, std::chrono::milliseconds(0));
}

void AdminClient::AsyncTelemetry(TelemetryCallback done, std::chrono::milliseconds timeout) {
  admin::AdminRequest request;
  request.set_token(token_);
  client_->AsyncCall(
      "admin.Telemetry", request.SerializeAsString(),
      [done = std::move(done), address = admin_.ToString()](rpc::CallResult&& result) {
        admin::AdminResponse response;
        if (!result.status.ok()) {
          done(result.status, {});
        } else if (!response.ParseFromString(result.payload)) {
          done({rpc::Code::kProtocolError, "malformed admin response from " + address}, {});
        } else {
          done(rpc::Status::Ok(), std::move(*response.mutable_telemetry()));
        }
      },
      timeout);
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
