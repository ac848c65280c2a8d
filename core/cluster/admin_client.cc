// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/admin_client.h"

#include "railyard/admin.boxcar.h"

namespace railyard::cluster {

namespace {

struct CommandSpec {
  AdminCommand command;
  const char* name;
};

constexpr CommandSpec kCommands[] = {
    {AdminCommand::kDrain, "drain"},
    {AdminCommand::kUndrain, "undrain"},
    {AdminCommand::kCompact, "compact"},
    {AdminCommand::kFlush, "flush"},
};

const CommandSpec& SpecOf(AdminCommand command) {
  for (const CommandSpec& spec : kCommands) {
    if (spec.command == command) return spec;
  }
  return kCommands[0];  // Unreachable: every enumerator has a row.
}

}  // namespace

const char* AdminCommandName(AdminCommand command) { return SpecOf(command).name; }

std::optional<AdminCommand> ParseAdminCommand(std::string_view name) {
  for (const CommandSpec& spec : kCommands) {
    if (name == spec.name) return spec.command;
  }
  return std::nullopt;
}

AdminClient::AdminClient(rpc::Endpoint admin, std::string token, std::string client_name,
                         std::optional<rpc::TlsClientOptions> tls,
                         std::shared_ptr<rpc::IoThreads> io)
    : admin_(std::move(admin)), token_(std::move(token)) {
  rpc::ClientOptions options;
  options.servers = {admin_};
  options.pool_size = 2;
  options.max_retries = 1;
  options.client_name = std::move(client_name);
  options.default_timeout = std::chrono::seconds(30);  // Compactions take a while.
  options.connect_timeout = std::chrono::milliseconds(1000);
  options.refill_parallelism = 1;
  // An admin service's slots balance nothing: a settled pool probes rarely (up to 1024 x 50 ms
  // apart) rather than four times a second, which a console watching 144 nodes paid for with
  // hundreds of connections a second. A lost connection still wakes the acquirer at once.
  options.acquirer_backoff_limit = rpc::ClientOptions::kBackoffLimitWhereSlotsBalanceNothing;
  options.tls = std::move(tls);
  options.io = std::move(io);
  client_ = std::make_unique<rpc::Client>(options);
}

AdminClient::~AdminClient() { client_->Stop(); }

rpc::Status AdminClient::Connect(std::chrono::milliseconds timeout) {
  if (rpc::Status s = client_->Start(); !s.ok()) return s;
  if (!client_->WaitForPool(1, timeout)) return NotConnectedStatus();
  return rpc::Status::Ok();
}

rpc::Status AdminClient::StartConnecting() { return client_->Start(); }

bool AdminClient::Connected() const {
  return client_->WaitForPool(1, std::chrono::milliseconds(0));
}

bool AdminClient::WaitConnected(std::chrono::milliseconds timeout) const {
  // Each AdminClient connects once, from a client of its own: any failure is this attempt's.
  return client_->WaitForPoolOrConnectFailure(1, timeout, /*connect_failures_before=*/0);
}

bool AdminClient::ConnectFailed() const {
  return !client_->Snapshot().last_connect_failure.empty();
}

rpc::Status AdminClient::NotConnectedStatus() const {
  const std::string why = client_->Snapshot().last_connect_failure;
  return {rpc::Code::kUnavailable, "cannot reach the admin service at " + admin_.ToString() +
                                       (why.empty() ? std::string() : " (" + why + ")")};
}

admin::AdminRequest AdminClient::Request() const {
  admin::AdminRequest request;
  request.set_token(token_);
  return request;
}

namespace {

// A Boxcar port without the admin methods (a docservice, a replication port, another service):
// named as such rather than as a node that failed.
rpc::Status NameWrongService(rpc::Status status, const std::string& address) {
  if (status.code() != rpc::Code::kUnknownMethod) return status;
  return {rpc::Code::kUnknownMethod, address + " speaks Boxcar but is not an admin service (" +
                                         status.message() +
                                         "): a docservice port? Give the node's ADMIN address"};
}

}  // namespace

rpc::Status AdminClient::Call(StubMethod method, const admin::AdminRequest& request,
                              admin::AdminResponse* response, std::chrono::milliseconds timeout) {
  admin::AdminService::Stub stub(*client_);
  const rpc::CallResult result = (stub.*method)(request, response, timeout);
  if (!result.status.ok()) return NameWrongService(result.status, admin_.ToString());
  return rpc::Status::Ok();
}

void AdminClient::Cancel() { client_->Stop(); }

rpc::Status AdminClient::Telemetry(admin::Telemetry* telemetry) {
  admin::AdminResponse response;
  rpc::Status s = Call(&admin::AdminService::Stub::Telemetry, Request(), &response);
  if (s.ok()) *telemetry = std::move(*response.mutable_telemetry());
  return s;
}

rpc::Status AdminClient::History(int64_t from_unix_ms, int64_t to_unix_ms, uint32_t max_bytes,
                                 admin::History* history, std::chrono::milliseconds timeout) {
  admin::AdminRequest request = Request();
  request.set_from_unix_ms(from_unix_ms);
  request.set_to_unix_ms(to_unix_ms);
  request.set_max_bytes(max_bytes);
  admin::AdminResponse response;
  rpc::Status s = Call(&admin::AdminService::Stub::History, request, &response, timeout);
  if (s.ok()) *history = std::move(*response.mutable_history());
  return s;
}

void AdminClient::AsyncTelemetry(TelemetryCallback done, std::chrono::milliseconds timeout) {
  admin::AdminService::Stub(*client_).AsyncTelemetry(
      Request(),
      [done = std::move(done), address = admin_.ToString()](rpc::CallResult&& result,
                                                            admin::AdminResponse&& response) {
        if (!result.status.ok()) {
          done(NameWrongService(result.status, address), {});
        } else {
          done(rpc::Status::Ok(), std::move(*response.mutable_telemetry()));
        }
      },
      timeout);
}

rpc::Status AdminClient::Drain(admin::AdminResponse* response) {
  return Call(&admin::AdminService::Stub::Drain, Request(), response);
}

rpc::Status AdminClient::Undrain(admin::AdminResponse* response) {
  return Call(&admin::AdminService::Stub::Undrain, Request(), response);
}

rpc::Status AdminClient::Compact(const std::vector<uint64_t>& indexes,
                                 admin::AdminResponse* response) {
  admin::AdminRequest request = Request();
  for (uint64_t index : indexes) request.add_indexes(index);
  return Call(&admin::AdminService::Stub::Compact, request, response);
}

rpc::Status AdminClient::Flush(admin::AdminResponse* response) {
  return Call(&admin::AdminService::Stub::Flush, Request(), response);
}

rpc::Status AdminClient::Locate(uint64_t id, admin::DocLocation* location) {
  admin::AdminRequest request = Request();
  request.set_doc_id(id);
  admin::AdminResponse response;
  rpc::Status s = Call(&admin::AdminService::Stub::Locate, request, &response);
  if (s.ok()) *location = std::move(*response.mutable_location());
  return s;
}

rpc::Status AdminClient::Snapshot(const std::string& name, admin::SnapshotTaken* taken,
                                  std::chrono::milliseconds timeout) {
  admin::AdminRequest request = Request();
  request.set_snapshot_name(name);
  admin::AdminResponse response;
  rpc::Status s = Call(&admin::AdminService::Stub::Snapshot, request, &response,
                       timeout.count() > 0 ? timeout : std::chrono::milliseconds(120000));
  if (s.ok()) *taken = std::move(*response.mutable_snapshot());
  return s;
}

rpc::Status AdminClient::Run(AdminCommand command, const std::vector<uint64_t>& indexes,
                             admin::AdminResponse* response) {
  switch (command) {
    case AdminCommand::kDrain:
      return Drain(response);
    case AdminCommand::kUndrain:
      return Undrain(response);
    case AdminCommand::kCompact:
      return Compact(indexes, response);
    case AdminCommand::kFlush:
      return Flush(response);
  }
  return {rpc::Code::kInvalidArgument, "unknown admin command"};
}

}  // namespace railyard::cluster
