// SPDX-License-Identifier: Apache-2.0
// A service owner's own Boxcar server with node::ServiceAdmin beside it, over real loopback
// sockets: the admin service reports its slot table, its methods' figures and the pools of the
// clients it watches; drain and undrain move the real server in and out of lame duck and need an
// operator's token; /metrics and /readyz follow; the server keeps serving once the admin service
// is gone.
#include <QTest>
#include <atomic>
#include <chrono>
#include <string>

#include "core/cluster/admin_client.h"
#include "core/node/service_admin.h"
#include "core/rpc/client.h"
#include "core/rpc/server.h"
#include "tests/rpc/rpc_test_support.h"
#include "tests/support/http_get.h"
#include "tests/support/qtest_main.h"
#include "tests/support/wait_until.h"

using namespace railyard;
using std::chrono::seconds;

namespace {

constexpr char kServiceViewerToken[] = "viewer-7a1f";
constexpr char kServiceOperatorToken[] = "operator-c39e";

// Answers "svc.Echo" with its payload, INVALID_ARGUMENT for an empty one.
void RegisterServiceEcho(rpc::Server& server) {
  server.RegisterHandler("svc.Echo", [](const rpc::CallContext&, std::string_view payload) {
    if (payload.empty()) return rpc::Reply{{rpc::Code::kInvalidArgument, "empty"}, {}};
    return rpc::Reply{rpc::Status::Ok(), std::string(payload)};
  });
}

node::ServiceAdminOptions ServiceAdminTestOptions(bool metrics) {
  node::ServiceAdminOptions options;
  options.name = "echo-service";
  options.version = "2.3";
  options.viewer_tokens = {kServiceViewerToken};
  options.operator_tokens = {kServiceOperatorToken};
  if (metrics) options.metrics = node::ServiceMetricsOptions{};
  return options;
}

std::unique_ptr<rpc::Client> StartFrontEndClient(const rpc::Server& server) {
  rpc::ClientOptions options;
  options.servers = {server.endpoint()};
  options.client_name = "front-end";
  options.pool_size = 2;
  auto client = std::make_unique<rpc::Client>(options);
  if (!client->Start().ok() || !client->WaitForPool(1, seconds(20))) return nullptr;
  return client;
}

const admin::MethodStats* FindServiceMethod(const admin::Telemetry& t, const std::string& method) {
  for (const admin::MethodStats& m : t.throughput().methods()) {
    if (m.method() == method) return &m;
  }
  return nullptr;
}

// A server with "svc.Echo", instrumented by a ServiceAdmin with /metrics.
struct InstrumentedService {
  static rpc::ServerOptions Instrumented(node::ServiceAdmin& admin) {
    rpc::ServerOptions options;
    admin.Instrument(&options);
    return options;
  }
  ~InstrumentedService() { admin.Stop(); }  // Before the server goes (ServiceAdmin::Stop).
  bool Start() {
    RegisterServiceEcho(server);
    return server.Start().ok() && admin.Start(&server).ok();
  }

  node::ServiceAdmin admin{ServiceAdminTestOptions(true)};
  rpc::Server server{Instrumented(admin)};
};

}  // namespace

class ServiceAdminTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void telemetryShowsSlotsMethodsAndWatchedPools() {
    node::ServiceAdmin admin(ServiceAdminTestOptions(false));
    std::atomic<int> earlier_hook{0};
    rpc::ServerOptions server_options;
    server_options.name = "echo-service";
    server_options.on_call_done = [&earlier_hook](std::string_view, std::chrono::nanoseconds,
                                                  const rpc::Status&) { ++earlier_hook; };
    admin.Instrument(&server_options);
    rpc::Server server(server_options);
    RegisterServiceEcho(server);
    QVERIFY(server.Start().ok());
    std::unique_ptr<rpc::Client> client = StartFrontEndClient(server);
    QVERIFY(client);
    QVERIFY(!admin.endpoint());
    QVERIFY(admin.WatchClient("front-end", client.get()).ok());
    QVERIFY(admin.Start(&server).ok());
    // The list is the admin threads' now.
    QCOMPARE(admin.WatchClient("late", client.get()).code(), rpc::Code::kFailedPrecondition);
    QVERIFY(!admin.metrics_endpoint());

    for (int i = 0; i < 20; ++i) QVERIFY(client->Call("svc.Echo", "hi").status.ok());
    for (int i = 0; i < 3; ++i) {
      QCOMPARE(client->Call("svc.Echo", "").status.code(), rpc::Code::kInvalidArgument);
    }
    QCOMPARE(client->Call("svc.Nothing", "x").status.code(), rpc::Code::kUnknownMethod);

    cluster::AdminClient viewer(*admin.endpoint(), kServiceViewerToken);
    QVERIFY(viewer.Connect(seconds(10)).ok());
    admin::Telemetry t;
    QVERIFY(viewer.Telemetry(&t).ok());
    QCOMPARE(t.node(), std::string("echo-service"));
    QCOMPARE(t.version(), std::string("2.3"));
    QCOMPARE(t.role(), admin::ROLE_BOTH);  // It serves, and it calls through a watched client.
    QCOMPARE(t.state(), admin::NODE_SERVING);
    QCOMPARE(t.service_address(), server.endpoint().ToString());
    QCOMPARE(t.admin_address(), admin.endpoint()->ToString());
    QVERIFY(t.started_unix_ms() > 0);
    QVERIFY(!t.has_storage());  // Unknown here, so absent: never shown as zero.
    QVERIFY(!t.has_replication());
    QVERIFY(!t.has_disk());
    QVERIFY(t.slots_size() >= 1);
    for (const admin::SlotEntry& slot : t.slots()) {
      QCOMPARE(slot.client_name(), std::string("front-end"));
    }
    const admin::MethodStats* echo = FindServiceMethod(t, "svc.Echo");
    QVERIFY(echo);
    QCOMPARE(echo->requests(), uint64_t{23});
    QCOMPARE(echo->errors(), uint64_t{3});
    QVERIFY(echo->p99_us() > 0);
    QVERIFY(!FindServiceMethod(t, "svc.Nothing"));  // No handler ran: not a method of this service.
    QCOMPARE(earlier_hook.load(), 23);              // The hook that was there is still told, too.
    QCOMPARE(t.pools_size(), 1);
    QCOMPARE(t.pools(0).client_name(), std::string("front-end"));
    QVERIFY(t.pools(0).entries_size() >= 1);
    QCOMPARE(t.pools(0).entries(0).server(), server.endpoint().ToString());
    QVERIFY(t.pools(0).counters().requests() >= 24);

    cluster::AdminClient stranger(*admin.endpoint(), "wrong-token");
    QVERIFY(stranger.Connect(seconds(10)).ok());
    QCOMPARE(stranger.Telemetry(&t).code(), rpc::Code::kUnauthenticated);
    admin.Stop();
  }

  void drainNeedsAnOperatorAndMovesTheRealServer() {
    InstrumentedService service;
    QVERIFY(service.Start());
    node::ServiceAdmin& admin = service.admin;
    rpc::Server& server = service.server;
    QVERIFY(admin.metrics_endpoint());
    const rpc::Endpoint metrics = *admin.metrics_endpoint();
    QCOMPARE(testing::HttpGet(metrics.host, metrics.port, "/readyz").status, 200);

    admin::AdminResponse response;
    cluster::AdminClient viewer(*admin.endpoint(), kServiceViewerToken);
    QVERIFY(viewer.Connect(seconds(10)).ok());
    const rpc::Status refused = viewer.Drain(&response);
    QCOMPARE(refused.code(), rpc::Code::kFailedPrecondition);
    QVERIFY2(refused.message().find("operator") != std::string::npos, refused.message().c_str());
    QCOMPARE(server.state(), rpc::ServerState::kServing);

    cluster::AdminClient op(*admin.endpoint(), kServiceOperatorToken);
    QVERIFY(op.Connect(seconds(10)).ok());
    QVERIFY(op.Drain(&response).ok());
    QCOMPARE(server.state(), rpc::ServerState::kLameDuck);
    admin::Telemetry t;
    QVERIFY(op.Telemetry(&t).ok());
    QCOMPARE(t.state(), admin::NODE_LAME_DUCK);
    QCOMPARE(t.recent_commands_size(), 2);  // The viewer's refused drain, then the operator's.
    QVERIFY(t.recent_commands(0).result() != "OK");
    QCOMPARE(t.recent_commands(1).result(), std::string("OK"));
    const testing::HttpAnswer not_ready = testing::HttpGet(metrics.host, metrics.port, "/readyz");
    QCOMPARE(not_ready.status, 503);
    QVERIFY2(not_ready.body.find("lame duck") != std::string::npos, not_ready.body.c_str());
    QCOMPARE(t.throughput().rejections_per_s(), 0.0);

    // A caller that heard of the drain and calls anyway is refused: the server's rejections, not
    // a request or failure of the method.
    {
      rpc::testing::RawConnection caller(server.port());
      QVERIFY(caller.Handshake(77));
      rpc::wire::Frame request;
      request.mutable_request()->set_id(1);
      request.mutable_request()->set_method("svc.Echo");
      request.mutable_request()->set_payload("late");
      caller.SendFrame(request);
      std::optional<rpc::wire::Frame> answer;
      for (int frames = 0; frames < 4 && !(answer && answer->has_response()); ++frames) {
        answer = caller.ReadFrame();
      }
      QVERIFY(answer && answer->has_response());
      QCOMPARE(answer->response().code(), rpc::wire::LAME_DUCK);
    }
    QVERIFY(op.Telemetry(&t).ok());
    QVERIFY(t.throughput().rejections_per_s() > 0.0);
    QVERIFY(!FindServiceMethod(t, "svc.Echo"));

    QVERIFY(op.Undrain(&response).ok());
    QCOMPARE(server.state(), rpc::ServerState::kServing);
    QCOMPARE(testing::HttpGet(metrics.host, metrics.port, "/readyz").status, 200);
    admin.Stop();
  }

  void metricsCarryTheServicesFiguresAndNoStorage() {
    InstrumentedService service;
    QVERIFY(service.Start());
    node::ServiceAdmin& admin = service.admin;
    rpc::Server& server = service.server;
    std::unique_ptr<rpc::Client> client = StartFrontEndClient(server);
    QVERIFY(client);
    for (int i = 0; i < 5; ++i) QVERIFY(client->Call("svc.Echo", "hi").status.ok());
    QCOMPARE(client->Call("svc.Echo", "").status.code(), rpc::Code::kInvalidArgument);

    const rpc::Endpoint metrics = *admin.metrics_endpoint();
    const testing::HttpAnswer page = testing::HttpGet(metrics.host, metrics.port, "/metrics");
    QCOMPARE(page.status, 200);
    const std::string& body = page.body;
    QVERIFY2(body.find("railyard_requests_total{method=\"svc.Echo\",code=\"OK\"} 5") !=
                 std::string::npos,
             body.c_str());
    QVERIFY(body.find("railyard_requests_total{method=\"svc.Echo\",code=\"INVALID_ARGUMENT\"} 1") !=
            std::string::npos);
    QVERIFY(body.find("railyard_request_duration_seconds_count{method=\"svc.Echo\"} 6") !=
            std::string::npos);
    QVERIFY(body.find("railyard_node_state{state=\"serving\"} 1") != std::string::npos);
    QVERIFY(body.find("process_resident_memory_bytes") != std::string::npos);
    // What this process does not have is left out, not reported as zero.
    QVERIFY(body.find("railyard_storage_") == std::string::npos);
    QVERIFY(body.find("railyard_replication_") == std::string::npos);
    QVERIFY(body.find("railyard_data_dir_") == std::string::npos);

    admin.ReplaceMetricsTokens({"scrape-token"});  // A reload, as a node's SIGHUP does.
    QCOMPARE(testing::HttpGet(metrics.host, metrics.port, "/metrics").status, 401);
    QCOMPARE(testing::HttpGet(metrics.host, metrics.port, "/metrics",
                              "Authorization: Bearer scrape-token\r\n")
                 .status,
             200);
    admin.Stop();
  }

  void startSaysWhyItCannot() {
    rpc::Server server(rpc::ServerOptions{});
    RegisterServiceEcho(server);
    QVERIFY(server.Start().ok());
    node::ServiceAdminOptions unnamed = ServiceAdminTestOptions(false);
    unnamed.name.clear();
    node::ServiceAdmin nameless(unnamed);
    QCOMPARE(nameless.Start(&server).code(), rpc::Code::kInvalidArgument);

    node::ServiceAdminOptions taken = ServiceAdminTestOptions(false);
    taken.port = server.port();  // The service's own port: in use.
    node::ServiceAdmin clash(taken);
    const rpc::Status s = clash.Start(&server);
    QVERIFY(!s.ok());
    QVERIFY2(s.message().find(std::to_string(server.port())) != std::string::npos,
             s.message().c_str());

    node::ServiceAdminOptions metrics_taken = ServiceAdminTestOptions(true);
    metrics_taken.metrics->port = server.port();
    node::ServiceAdmin metrics_clash(metrics_taken);
    QVERIFY(!metrics_clash.Start(&server).ok());
    node::ServiceAdmin twice(ServiceAdminTestOptions(false));
    QVERIFY(twice.Start(&server).ok());
    QCOMPARE(twice.Start(&server).code(), rpc::Code::kFailedPrecondition);
  }

  // The server's hook holds the figures, not the admin service: calls after it is gone are safe.
  void theServerOutlivesItsAdminService() {
    rpc::ServerOptions server_options;
    {
      node::ServiceAdmin admin(ServiceAdminTestOptions(false));
      admin.Instrument(&server_options);
    }
    rpc::Server server(server_options);
    RegisterServiceEcho(server);
    QVERIFY(server.Start().ok());
    std::unique_ptr<rpc::Client> client = StartFrontEndClient(server);
    QVERIFY(client);
    for (int i = 0; i < 5; ++i) QVERIFY(client->Call("svc.Echo", "hi").status.ok());
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ServiceAdminTest)
#include "tst_service_admin.moc"
