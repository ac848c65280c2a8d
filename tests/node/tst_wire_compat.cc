// SPDX-License-Identifier: Apache-2.0
// Wire compatibility of the typed services (protoc-gen-boxcar) with the release before them,
// whose callers and servers spelled method names and serialised payloads by hand. The string
// literals below are that release's side of the wire, on purpose: an old client calls a node of
// today, and today's stubs and AdminClient call servers whose handlers are registered as the old
// release registered them.
#include <QTemporaryDir>
#include <QTest>
#include <memory>
#include <string>

#include "core/cluster/admin_client.h"
#include "core/node/node.h"
#include "core/rpc/client.h"
#include "core/rpc/server.h"
#include "railyard/admin.pb.h"
#include "railyard/docservice.boxcar.h"
#include "railyard/replication.boxcar.h"
#include "tests/support/qtest_main.h"

using namespace railyard;

namespace {

std::unique_ptr<rpc::Client> ConnectedClient(const rpc::Endpoint& server) {
  rpc::ClientOptions options;
  options.servers = {server};
  options.pool_size = 1;
  options.client_name = "tst-wire-compat";
  auto client = std::make_unique<rpc::Client>(options);
  if (!client->Start().ok() || !client->WaitForPool(1, std::chrono::seconds(10))) return nullptr;
  return client;
}

}  // namespace

class WireCompatTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The names the old release put on the wire are the generated ones.
  void theGeneratedNamesAreTheOldOnes() {
    QCOMPARE(doc::DocService::kGetMethod, std::string_view("doc.Get"));
    QCOMPARE(doc::DocService::kPutMethod, std::string_view("doc.Put"));
    QCOMPARE(doc::DocService::kDeleteMethod, std::string_view("doc.Delete"));
    QCOMPARE(doc::DocService::kBatchGetMethod, std::string_view("doc.BatchGet"));
    QCOMPARE(repl::ReplicationService::kFetchMethod, std::string_view("repl.Fetch"));
    QCOMPARE(admin::AdminService::kTelemetryMethod, std::string_view("admin.Telemetry"));
    QCOMPARE(admin::AdminService::kHistoryMethod, std::string_view("admin.History"));
    QCOMPARE(admin::AdminService::kDrainMethod, std::string_view("admin.Drain"));
    QCOMPARE(admin::AdminService::kUndrainMethod, std::string_view("admin.Undrain"));
    QCOMPARE(admin::AdminService::kCompactMethod, std::string_view("admin.Compact"));
    QCOMPARE(admin::AdminService::kFlushMethod, std::string_view("admin.Flush"));
  }

  // An old client, names and payloads by hand, against a node serving the generated services.
  void anOldClientTalksToATypedNode() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    node::NodeOptions options;
    options.name = "typed-node";
    options.data_dir = dir.path().toStdString();
    options.io_threads = 1;
    options.worker_threads = 2;
    options.flight.enabled = false;
    std::unique_ptr<node::Node> node;
    QVERIFY(node::Node::Open(options, &node).ok());
    std::unique_ptr<rpc::Client> client = ConnectedClient(node->endpoint());
    QVERIFY(client);

    doc::PutRequest put;
    put.set_id(7);
    put.set_doc("seven");
    rpc::CallResult result = client->Call("doc.Put", put.SerializeAsString());
    QVERIFY2(result.status.ok(), result.status.ToString().c_str());
    doc::PutResponse put_answer;
    QVERIFY(put_answer.ParseFromString(result.payload));
    QVERIFY(put_answer.position() > 0);

    doc::GetRequest get;
    get.set_id(7);
    get.set_min_position(put_answer.position());
    result = client->Call("doc.Get", get.SerializeAsString());
    QVERIFY(result.status.ok());
    doc::GetResponse got;
    QVERIFY(got.ParseFromString(result.payload));
    QCOMPARE(got.doc(), std::string("seven"));

    doc::BatchGetRequest batch;
    batch.add_ids(7);
    batch.add_ids(8);
    result = client->Call("doc.BatchGet", batch.SerializeAsString());
    doc::BatchGetResponse batch_answer;
    QVERIFY(result.status.ok() && batch_answer.ParseFromString(result.payload));
    QCOMPARE(batch_answer.items_size(), 2);
    QVERIFY(batch_answer.items(0).found() && !batch_answer.items(1).found());

    doc::DeleteRequest del;
    del.set_id(7);
    QVERIFY(client->Call("doc.Delete", del.SerializeAsString()).status.ok());
    QCOMPARE(client->Call("doc.Get", get.SerializeAsString()).status.code(), rpc::Code::kNotFound);
    // What the old release answered for a name it did not know, the new one answers too.
    QCOMPARE(client->Call("doc.Scan", "").status.code(), rpc::Code::kUnknownMethod);

    std::unique_ptr<rpc::Client> admin_client = ConnectedClient(node->admin_endpoint());
    QVERIFY(admin_client);
    result = admin_client->Call("admin.Telemetry", admin::AdminRequest().SerializeAsString());
    QVERIFY2(result.status.ok(), result.status.ToString().c_str());
    admin::AdminResponse telemetry;
    QVERIFY(telemetry.ParseFromString(result.payload));
    QCOMPARE(telemetry.telemetry().node(), std::string("typed-node"));
    client.reset();
    admin_client.reset();
    node->Shutdown(std::chrono::milliseconds(0));
  }

  // Today's stubs and AdminClient against handlers registered the old release's way.
  void typedClientsTalkToAnOldServer() {
    rpc::Server old_service(rpc::ServerOptions{});
    old_service.RegisterHandler("doc.Get", [](const rpc::CallContext&, std::string_view payload) {
      doc::GetRequest request;
      if (!request.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
        return rpc::Reply{{rpc::Code::kInvalidArgument, "malformed doc.Get request"}, {}};
      }
      doc::GetResponse response;
      response.set_doc("document " + std::to_string(request.id()));
      return rpc::Reply{rpc::Status::Ok(), response.SerializeAsString()};
    });
    old_service.RegisterHandler("repl.Fetch", [](const rpc::CallContext&, std::string_view) {
      repl::FetchResponse response;
      response.set_head_position(42);
      return rpc::Reply{rpc::Status::Ok(), response.SerializeAsString()};
    });
    QVERIFY(old_service.Start().ok());
    std::unique_ptr<rpc::Client> client = ConnectedClient(old_service.endpoint());
    QVERIFY(client);
    doc::GetRequest get;
    get.set_id(9);
    doc::GetResponse got;
    rpc::CallResult result = doc::DocService::Stub(*client).Get(get, &got);
    QVERIFY2(result.status.ok(), result.status.ToString().c_str());
    QCOMPARE(got.doc(), std::string("document 9"));
    repl::FetchResponse fetched;
    QVERIFY(
        repl::ReplicationService::Stub(*client).Fetch(repl::FetchRequest(), &fetched).status.ok());
    QCOMPARE(fetched.head_position(), uint64_t{42});

    rpc::Server old_admin(rpc::ServerOptions{});
    old_admin.RegisterHandler("admin.Telemetry", [](const rpc::CallContext&, std::string_view) {
      admin::AdminResponse response;
      response.mutable_telemetry()->set_node("an old node");
      return rpc::Reply{rpc::Status::Ok(), response.SerializeAsString()};
    });
    QVERIFY(old_admin.Start().ok());
    cluster::AdminClient admin(old_admin.endpoint(), "", "tst-wire-compat");
    QVERIFY(admin.Connect(std::chrono::seconds(10)).ok());
    admin::Telemetry telemetry;
    QVERIFY(admin.Telemetry(&telemetry).ok());
    QCOMPARE(telemetry.node(), std::string("an old node"));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(WireCompatTest)
#include "tst_wire_compat.moc"
