// SPDX-License-Identifier: Apache-2.0
// A Greeter server with Railyard's admin service beside it: `railyardctl status -n <admin>` and
// the console (`railyard -n <admin>`) show its slots, its methods' rates and latency, and drain
// and undrain it; with --metrics-listen, Prometheus scrapes it. SIGTERM or SIGINT drains it
// (lame duck: Boxcar clients move to the other servers) and stops it.
#include <railyard/core/node/service_admin.h>
#include <railyard/core/rpc/endpoint.h>
#include <railyard/core/rpc/server.h>
#include <railyard/core/rpc/signals.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "flags.h"
#include "greeter.boxcar.h"

namespace {

namespace rpc = railyard::rpc;

constexpr const char* kUsage =
    "usage: greeter_server [--name NAME] [--listen HOST:PORT] [--admin-listen HOST:PORT]\n"
    "                      [--metrics-listen HOST:PORT] [--viewer-token-file FILE]\n"
    "                      [--operator-token-file FILE]\n"
    "Serves greeter.Greet; ports 0 (the default) let the OS choose. Prints one line with the\n"
    "service's, the admin service's and /metrics' addresses once they listen.\n";

class GreeterService final : public greeter::Greeter::Service {
 public:
  explicit GreeterService(std::string name) : name_(std::move(name)) {}

  rpc::Status Greet(const rpc::CallContext& /*call*/, const greeter::GreetRequest& request,
                    greeter::GreetReply* reply) override {
    if (request.name().empty()) return {rpc::Code::kInvalidArgument, "whom to greet?"};
    reply->set_greeting("Hello, " + request.name() + "!");
    reply->set_served_by(name_);
    return rpc::Status::Ok();
  }

 private:
  const std::string name_;
};

int Usage(const std::string& error) {
  std::fprintf(stderr, "greeter_server: %s\n%s", error.c_str(), kUsage);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string error;
  const std::optional<greeter::Flags> flags =
      greeter::Flags::Parse(argc, argv,
                            {"--name", "--listen", "--admin-listen", "--metrics-listen",
                             "--viewer-token-file", "--operator-token-file"},
                            &error);
  if (!flags) return Usage(error);
  if (flags->help()) {
    std::printf("%s", kUsage);
    return 0;
  }
  const std::string name = flags->Get("--name", "greeter");
  const std::optional<rpc::Endpoint> listen =
      rpc::ParseListenAddress(flags->Get("--listen", "127.0.0.1:0"));
  const std::optional<rpc::Endpoint> admin_listen =
      rpc::ParseListenAddress(flags->Get("--admin-listen", "127.0.0.1:0"));
  if (!listen || !admin_listen) return Usage("--listen and --admin-listen take HOST:PORT");

  // The admin service: the same tokens (and, with ServiceAdminOptions::tls, TLS) as a node's.
  railyard::node::ServiceAdminOptions admin_options;
  admin_options.name = name;
  admin_options.version = "1.0";
  admin_options.host = admin_listen->host;
  admin_options.port = admin_listen->port;
  if (!greeter::ReadTokenFile(flags->Get("--viewer-token-file"), &admin_options.viewer_tokens,
                              &error) ||
      !greeter::ReadTokenFile(flags->Get("--operator-token-file"), &admin_options.operator_tokens,
                              &error)) {
    std::fprintf(stderr, "greeter_server: %s\n", error.c_str());
    return 1;
  }
  if (const std::string metrics = flags->Get("--metrics-listen"); !metrics.empty()) {
    const std::optional<rpc::Endpoint> at = rpc::ParseListenAddress(metrics);
    if (!at) return Usage("--metrics-listen takes HOST:PORT");
    admin_options.metrics = railyard::node::ServiceMetricsOptions{};
    admin_options.metrics->host = at->host;
    admin_options.metrics->port = at->port;
  }
  railyard::node::ServiceAdmin admin(admin_options);

  rpc::ServerOptions server_options;
  server_options.name = name;
  server_options.host = listen->host;
  server_options.port = listen->port;
  admin.Instrument(&server_options);  // Per-method rates and latency for the admin service.
  rpc::Server server(server_options);
  GreeterService service(name);
  greeter::Greeter::Register(server, service);
  if (rpc::Status s = server.Start(); !s.ok()) {
    std::fprintf(stderr, "greeter_server: cannot serve on %s: %s\n", listen->ToString().c_str(),
                 s.ToString().c_str());
    return 1;
  }
  if (rpc::Status s = admin.Start(&server); !s.ok()) {
    std::fprintf(stderr, "greeter_server: no admin service: %s\n", s.ToString().c_str());
    return 1;
  }
  const std::optional<rpc::Endpoint> metrics = admin.metrics_endpoint();
  std::printf("greeter %s: service %s admin %s metrics %s\n", name.c_str(),
              server.endpoint().ToString().c_str(), admin.endpoint()->ToString().c_str(),
              metrics ? metrics->ToString().c_str() : "-");
  std::fflush(stdout);
  rpc::ServeUntilSignalled(server, std::chrono::seconds(5));
  admin.Stop();
  return 0;
}
