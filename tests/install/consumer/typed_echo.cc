// SPDX-License-Identifier: Apache-2.0
// A service owner's typed Boxcar service, generated from echo.proto by railyard_generate_boxcar()
// of the installed package: a server implements Echo::Service, a client calls it through the
// Stub, synchronously and asynchronously. Exits 0 only if every call came back as it should.
#include <railyard/core/rpc/client.h>
#include <railyard/core/rpc/server.h>

#include <chrono>
#include <cstdio>
#include <future>
#include <string>
#include <thread>

#include "echo.boxcar.h"

namespace {

namespace rpc = railyard::rpc;
namespace echo = consumer::echo;

int Fail(const std::string& what) {
  std::fprintf(stderr, "FAIL: %s\n", what.c_str());
  return 1;
}

class EchoService final : public echo::Echo::Service {
 public:
  rpc::Status Say(const rpc::CallContext& call, const echo::SayRequest& request,
                  echo::SayResponse* response) override {
    if (request.text().empty()) return {rpc::Code::kInvalidArgument, "nothing to say"};
    response->set_text("echo: " + request.text());
    response->set_served_by_slot(call.slot);
    return rpc::Status::Ok();
  }
};

}  // namespace

int main() {
  if (echo::Echo::kSayMethod != "echo.Say")
    return Fail("wire name " + std::string(echo::Echo::kSayMethod));
  EchoService service;
  rpc::ServerOptions server_options;
  server_options.name = "typed-echo";
  server_options.io_threads = 1;
  server_options.worker_threads = 1;
  rpc::Server server(server_options);
  echo::Echo::Register(server, service);
  if (rpc::Status started = server.Start(); !started.ok())
    return Fail("start: " + started.ToString());

  rpc::ClientOptions client_options;
  client_options.servers = {server.endpoint()};
  rpc::Client client(client_options);
  if (rpc::Status started = client.Start(); !started.ok())
    return Fail("client: " + started.ToString());
  if (!client.WaitForPool(1, std::chrono::seconds(30))) return Fail("no connection within 30 s");
  echo::Echo::Stub stub(client);

  echo::SayRequest request;
  request.set_text("hello");
  echo::SayResponse response;
  rpc::CallResult result = stub.Say(request, &response, std::chrono::seconds(10));
  if (!result.status.ok() || response.text() != "echo: hello") {
    return Fail("Say: " + result.status.ToString() + " '" + response.text() + "'");
  }
  request.clear_text();
  result = stub.Say(request, &response, std::chrono::seconds(10));
  if (result.status.code() != rpc::Code::kInvalidArgument)
    return Fail("empty Say: " + result.status.ToString());
  result = stub.Shout(request, &response, std::chrono::seconds(10));
  if (result.status.code() != rpc::Code::kUnknownMethod)
    return Fail("Shout: " + result.status.ToString());

  std::promise<std::string> answered;
  request.set_text("async");
  stub.AsyncSay(
      request,
      [&answered](rpc::CallResult&& result, echo::SayResponse&& response) {
        answered.set_value(result.status.ok() ? response.text() : result.status.ToString());
      },
      std::chrono::seconds(10));
  std::future<std::string> text = answered.get_future();
  if (text.wait_for(std::chrono::seconds(20)) != std::future_status::ready)
    return Fail("AsyncSay never answered");
  if (const std::string got = text.get(); got != "echo: async") return Fail("AsyncSay: " + got);
  std::printf("typed echo: Say, an invalid Say, an unimplemented Shout and AsyncSay as expected\n");
  client.Stop();
  server.Stop();
  return 0;
}
