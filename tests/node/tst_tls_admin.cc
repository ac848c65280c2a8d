// SPDX-License-Identifier: Apache-2.0
// TLS on the node's listeners: the config's TLS blocks become listener options (with clear errors
// for half-filled ones), a node opened with them serves its docservice and admin service only
// over TLS, and AdminClient reaches a mutual-TLS admin service with the CA and a certificate.
#include <QTemporaryDir>
#include <QTest>

#include "core/cluster/admin_client.h"
#include "core/cluster/cluster_file.h"
#include "core/node/admin_service.h"
#include "core/node/config.h"
#include "core/node/node.h"
#include "core/node/service_admin.h"
#include "core/rpc/server.h"
#include "tests/rpc/tls_test_certs.h"
#include "tests/support/http_get.h"
#include "tests/support/qtest_main.h"

using namespace railyard;
using rpc::testing::TlsTestFiles;
using std::chrono::milliseconds;

class TlsAdminTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    files_ = rpc::testing::MakeTlsTestFiles(dir_.path().toStdString());
  }

  void configTlsBlocksBecomeListenerOptions() {
    const std::string path = dir_.filePath("node.textproto").toStdString();
    {
      QFile f(QString::fromStdString(path));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(
          "data_dir: \"/tmp/unused\"\n"
          "tls { cert_file: \"/etc/railyard/node.pem\" key_file: \"/etc/railyard/node.key\" }\n"
          "admin_tls { cert_file: \"/etc/railyard/admin.pem\" "
          "key_file: \"/etc/railyard/admin.key\" client_ca_file: \"/etc/railyard/ops-ca.pem\" }\n");
    }
    config::NodeConfig c;
    const rpc::Status loaded = node::LoadNodeConfig(path, &c);
    QVERIFY2(loaded.ok(), loaded.ToString().c_str());
    node::NodeOptions o;
    QVERIFY(node::NodeOptionsFrom(c, &o).ok());
    QVERIFY(o.tls);
    QCOMPARE(o.tls->cert_file, std::string("/etc/railyard/node.pem"));
    QCOMPARE(o.tls->key_file, std::string("/etc/railyard/node.key"));
    QVERIFY(o.tls->client_ca_file.empty());
    QVERIFY(o.admin.tls);
    QCOMPARE(o.admin.tls->client_ca_file, std::string("/etc/railyard/ops-ca.pem"));
    QVERIFY(o.admin.tls->require_client_cert);  // Unset means required.

    c.mutable_admin_tls()->set_require_client_cert(false);
    QVERIFY(node::NodeOptionsFrom(c, &o).ok());
    QVERIFY(!o.admin.tls->require_client_cert);

    config::NodeConfig plain;
    plain.set_data_dir("/tmp/unused");
    node::NodeOptions p;
    QVERIFY(node::NodeOptionsFrom(plain, &p).ok());
    QVERIFY(!p.tls);
    QVERIFY(!p.admin.tls);

    config::NodeConfig half;
    half.mutable_admin_tls()->set_cert_file("/etc/railyard/admin.pem");
    const rpc::Status s = node::NodeOptionsFrom(half, &p);
    QCOMPARE(s.code(), rpc::Code::kInvalidArgument);
    QVERIFY2(s.message().find("admin_tls needs both cert_file and key_file") != std::string::npos,
             s.message().c_str());
  }

  void clusterFileCarriesClientTls() {
    const std::string path = dir_.filePath("cluster.textproto").toStdString();
    {
      QFile f(QString::fromStdString(path));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(
          "node { name: \"a\" admin: \"127.0.0.1:7001\" }\n"
          "admin_tls { ca_file: \"/etc/railyard/ca.pem\" server_name: \"admin.internal\" }\n");
    }
    config::Cluster cluster;
    QVERIFY(cluster::LoadClusterFile(path, &cluster).ok());
    const std::optional<rpc::TlsClientOptions> tls = cluster::AdminTlsOf(cluster);
    QVERIFY(tls);
    QCOMPARE(tls->ca_file, std::string("/etc/railyard/ca.pem"));
    QCOMPARE(tls->server_name, std::string("admin.internal"));
    QVERIFY(tls->verify_peer);
    cluster.clear_admin_tls();
    QVERIFY(!cluster::AdminTlsOf(cluster));
  }

  void mutualTlsAdminServiceAnswersOnlyClientsWithACertificate() {
    node::AdminOptions options;
    options.name = "tls-admin";
    options.viewer_tokens = {"viewer-secret"};
    options.tls = rpc::TlsServerOptions{};
    options.tls->cert_file = files_.server_cert;
    options.tls->key_file = files_.server_key;
    options.tls->client_ca_file = files_.ca_cert;
    admin::Telemetry canned;
    canned.set_node("tls-admin");
    node::AdminService service(options, [canned] { return canned; }, {});
    const rpc::Status started = service.Start();
    QVERIFY2(started.ok(), started.ToString().c_str());

    rpc::TlsClientOptions with_cert;
    with_cert.ca_file = files_.ca_cert;
    with_cert.cert_file = files_.client_cert;
    with_cert.key_file = files_.client_key;
    cluster::AdminClient member(service.endpoint(), "viewer-secret", "tls-test", with_cert);
    const rpc::Status connected = member.Connect(milliseconds(5000));
    QVERIFY2(connected.ok(), connected.ToString().c_str());
    admin::Telemetry telemetry;
    QVERIFY(member.Telemetry(&telemetry).ok());
    QCOMPARE(telemetry.node(), std::string("tls-admin"));

    rpc::TlsClientOptions no_cert;
    no_cert.ca_file = files_.ca_cert;
    cluster::AdminClient anonymous(service.endpoint(), "viewer-secret", "tls-test", no_cert);
    const rpc::Status refused = anonymous.Connect(milliseconds(500));
    QCOMPARE(refused.code(), rpc::Code::kUnavailable);
    // The status names the last failed handshake. On a loaded machine the first one may not have
    // failed yet within Connect's 500 ms: wait for it (the status Connect returns, asked again).
    QTRY_VERIFY2_WITH_TIMEOUT(
        anonymous.NotConnectedStatus().message().find("certificate required") != std::string::npos,
        anonymous.NotConnectedStatus().message().c_str(), 20000);
    cluster::AdminClient plain(service.endpoint(), "viewer-secret", "tls-test");
    QCOMPARE(plain.Connect(milliseconds(500)).code(), rpc::Code::kUnavailable);

    // A CA file that cannot be read is named by Connect.
    rpc::TlsClientOptions missing;
    missing.ca_file = dir_.filePath("nowhere.pem").toStdString();
    cluster::AdminClient lost(service.endpoint(), "viewer-secret", "tls-test", missing);
    const rpc::Status s = lost.Connect(milliseconds(500));
    QVERIFY2(s.message().find(missing.ca_file) != std::string::npos, s.message().c_str());
  }

  // A service of one's own takes the same TLS options as a node for its admin service and
  // /metrics: a client certificate is required where the node would require one.
  void aServiceAdminSpeaksTlsAsANodeDoes() {
    rpc::TlsServerOptions tls;
    tls.cert_file = files_.server_cert;
    tls.key_file = files_.server_key;
    tls.client_ca_file = files_.ca_cert;
    node::ServiceAdminOptions options;
    options.name = "tls-service";
    options.viewer_tokens = {"viewer-secret"};
    options.tls = tls;
    options.metrics = node::ServiceMetricsOptions{};
    options.metrics->tls = tls;
    options.metrics->tls->client_ca_file.clear();  // /metrics: server TLS only, as a node's may be.
    node::ServiceAdmin admin(options);
    rpc::ServerOptions server_options;
    admin.Instrument(&server_options);
    rpc::Server server(server_options);
    QVERIFY(server.Start().ok());
    const rpc::Status started = admin.Start(&server);
    QVERIFY2(started.ok(), started.ToString().c_str());

    rpc::TlsClientOptions with_cert;
    with_cert.ca_file = files_.ca_cert;
    with_cert.cert_file = files_.client_cert;
    with_cert.key_file = files_.client_key;
    cluster::AdminClient member(*admin.endpoint(), "viewer-secret", "tls-test", with_cert);
    const rpc::Status connected = member.Connect(milliseconds(5000));
    QVERIFY2(connected.ok(), connected.ToString().c_str());
    admin::Telemetry telemetry;
    QVERIFY(member.Telemetry(&telemetry).ok());
    QCOMPARE(telemetry.node(), std::string("tls-service"));
    cluster::AdminClient plain(*admin.endpoint(), "viewer-secret", "tls-test");
    QCOMPARE(plain.Connect(milliseconds(500)).code(), rpc::Code::kUnavailable);

    const rpc::Endpoint metrics = *admin.metrics_endpoint();
    const testing::HttpAnswer page =
        testing::HttpGet(metrics.host, metrics.port, "/metrics", {}, files_.ca_cert);
    QCOMPARE(page.status, 200);
    QVERIFY(page.body.find("railyard_node_state{state=\"serving\"} 1") != std::string::npos);
    QCOMPARE(testing::HttpGet(metrics.host, metrics.port, "/metrics").status, 0);  // Not plain.
    const rpc::Status reloaded = admin.ReloadTls();
    QVERIFY2(reloaded.ok(), reloaded.ToString().c_str());
    admin.Stop();
  }

  void aNodeServesBothListenersOverTls() {
    QTemporaryDir data;
    config::NodeConfig c;
    c.set_name("tls-node");
    c.set_data_dir(data.path().toStdString());
    c.set_listen("127.0.0.1:0");
    c.set_admin_listen("127.0.0.1:0");
    c.mutable_tls()->set_cert_file(files_.server_cert);
    c.mutable_tls()->set_key_file(files_.server_key);
    c.mutable_admin_tls()->set_cert_file(files_.server_cert);
    c.mutable_admin_tls()->set_key_file(files_.server_key);
    node::NodeOptions o;
    QVERIFY(node::NodeOptionsFrom(c, &o).ok());
    std::unique_ptr<node::Node> n;
    const rpc::Status opened = node::Node::Open(o, &n);
    QVERIFY2(opened.ok(), opened.ToString().c_str());

    rpc::TlsClientOptions tls;
    tls.ca_file = files_.ca_cert;
    cluster::AdminClient admin(n->admin_endpoint(), "", "tls-test", tls);
    QVERIFY(admin.Connect(milliseconds(5000)).ok());
    admin::Telemetry telemetry;
    QVERIFY(admin.Telemetry(&telemetry).ok());
    QCOMPARE(telemetry.node(), std::string("tls-node"));

    rpc::ClientOptions service;
    service.servers = {n->endpoint()};
    service.pool_size = 1;
    service.tls = tls;
    rpc::Client client(service);
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(1, milliseconds(5000)));
    rpc::ClientOptions plain_options = service;
    plain_options.tls.reset();
    rpc::Client plain(plain_options);
    QVERIFY(plain.Start().ok());
    QVERIFY(!plain.WaitForPool(1, milliseconds(300)));
    plain.Stop();
    client.Stop();
    n->Shutdown(milliseconds(0));

    // A key that does not match fails Open, naming the files.
    c.mutable_admin_tls()->set_key_file(files_.client_key);
    QVERIFY(node::NodeOptionsFrom(c, &o).ok());
    QTemporaryDir data2;
    o.data_dir = data2.path().toStdString();
    std::unique_ptr<node::Node> bad;
    const rpc::Status refused = node::Node::Open(o, &bad);
    QVERIFY(!refused.ok());
    QVERIFY2(refused.message().find(files_.client_key) != std::string::npos,
             refused.message().c_str());
  }

 private:
  QTemporaryDir dir_;
  TlsTestFiles files_;
};

RAILYARD_QTEST_GUILESS_MAIN(TlsAdminTest)
#include "tst_tls_admin.moc"
