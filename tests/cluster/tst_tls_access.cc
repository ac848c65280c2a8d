// SPDX-License-Identifier: Apache-2.0
// The cluster-access layer over TLS: the telemetry poller, `railyardctl watch` and `record` reach
// an admin service that requires a client certificate, honour a cluster file's admin_tls, and
// say why (not just "unreachable") when the CA does not match. Plus the access rules themselves.
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "core/cluster/access.h"
#include "core/cluster/telemetry_poller.h"
#include "core/trace/recording_reader.h"
#include "tests/cluster/tls_admin_fixture.h"
#include "tests/e2e/node_process.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

using namespace railyard;
using testing::TlsAdminFixture;

namespace {

// What OpenSSL says when the server's certificate does not chain to the client's CA.
constexpr char kVerifyFailed[] = "certificate verify failed";

QStringList TlsFlags(const rpc::TlsClientOptions& tls) {
  return {"--tls-ca",   QString::fromStdString(tls.ca_file),
          "--tls-cert", QString::fromStdString(tls.cert_file),
          "--tls-key",  QString::fromStdString(tls.key_file)};
}

}  // namespace

class TlsAccessTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    fixture_ = std::make_unique<TlsAdminFixture>(dir_.path().toStdString());
    QVERIFY2(fixture_->started().ok(), fixture_->started().ToString().c_str());
  }

  void pollerReachesATlsAdminServiceWithAClientCertificate() {
    cluster::PollerOptions options;
    options.wait_for_connect = true;
    options.connect_timeout = std::chrono::seconds(5);
    cluster::TelemetryPoller poller(
        {{7, fixture_->endpoint(), testing::kTlsViewerToken, fixture_->GoodClient()}}, options);
    const std::vector<cluster::PollResult> results = poller.PollRound();
    QCOMPARE(results.size(), size_t{1});
    QCOMPARE(results[0].id, 7);
    QVERIFY2(results[0].status.ok(), results[0].status.ToString().c_str());
    QCOMPARE(results[0].telemetry->node(), std::string(testing::kTlsNodeName));
  }

  void pollerSaysWhyWhenTheCaDoesNotMatch() {
    cluster::PollerOptions options;
    options.wait_for_connect = true;
    cluster::TelemetryPoller poller(
        {{0, fixture_->endpoint(), testing::kTlsViewerToken, fixture_->WrongCaClient()}}, options);
    const std::vector<cluster::PollResult> results = poller.PollRound();
    QCOMPARE(results.size(), size_t{1});
    QCOMPARE(results[0].status.code(), rpc::Code::kUnavailable);
    const std::string& why = results[0].status.message();
    QVERIFY2(why.find(kVerifyFailed) != std::string::npos, why.c_str());
    QVERIFY2(why.find(fixture_->address()) != std::string::npos, why.c_str());
  }

  void watchReachesATlsAdminService() {
    QString out;
    const int rc =
        e2e::RunCtl(BuiltProgram("railyardctl"),
                    QStringList{"watch", "-n", QString::fromStdString(fixture_->address()),
                                "--count", "1", "--token", testing::kTlsViewerToken} +
                        TlsFlags(fixture_->GoodClient()),
                    &out);
    QVERIFY2(rc == 0, qPrintable(out));
    QVERIFY2(out.contains(testing::kTlsServiceMarker), qPrintable(out));
  }

  void watchSaysWhyWhenTheCaDoesNotMatch() {
    QString out;
    const int rc =
        e2e::RunCtl(BuiltProgram("railyardctl"),
                    QStringList{"watch", "-n", QString::fromStdString(fixture_->address()),
                                "--count", "1", "--token", testing::kTlsViewerToken} +
                        TlsFlags(fixture_->WrongCaClient()),
                    &out);
    QVERIFY2(rc == 4, qPrintable(out));                      // Unreachable, as documented...
    QVERIFY2(out.contains(kVerifyFailed), qPrintable(out));  // ...and why.
  }

  void recordReachesATlsAdminService() {
    const QString path = dir_.filePath("tls.rec");
    QString out;
    const int rc =
        e2e::RunCtl(BuiltProgram("railyardctl"),
                    QStringList{"record", "-n", QString::fromStdString(fixture_->address()),
                                "--token", testing::kTlsViewerToken, "-o", path, "--interval-ms",
                                "100", "--duration-s", "3"} +  // Room for 2 rounds when loaded.
                        TlsFlags(fixture_->GoodClient()),
                    &out);
    QVERIFY2(rc == 0, qPrintable(out));
    std::unique_ptr<trace::RecordingReader> reader;
    QVERIFY(trace::RecordingReader::Open(path.toStdString(), &reader).ok());
    uint64_t snapshots = 0;
    QVERIFY(reader->SnapshotCount(&snapshots).ok());
    QVERIFY2(snapshots >= 2, qPrintable(out));
  }

  void recordSaysWhyWhenTheCaDoesNotMatch() {
    QString out;
    const int rc = e2e::RunCtl(
        BuiltProgram("railyardctl"),
        QStringList{"record", "-n", QString::fromStdString(fixture_->address()), "--token",
                    testing::kTlsViewerToken, "-o", dir_.filePath("refused.rec"), "--interval-ms",
                    "100", "--duration-s", "0.5"} +
            TlsFlags(fixture_->WrongCaClient()),
        &out);
    QVERIFY2(rc == 4, qPrintable(out));
    QVERIFY2(out.contains(kVerifyFailed), qPrintable(out));
  }

  void clusterFileAdminTlsIsHonoured() {
    const rpc::TlsClientOptions tls = fixture_->GoodClient();
    const QString path = dir_.filePath("tls-cluster.textproto");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QStringLiteral("name: \"tls\"\nnode { name: \"behind-tls\" admin: \"%1\" }\n"
                              "admin_tls { ca_file: \"%2\" cert_file: \"%3\" key_file: \"%4\" }\n")
                   .arg(QString::fromStdString(fixture_->address()),
                        QString::fromStdString(tls.ca_file), QString::fromStdString(tls.cert_file),
                        QString::fromStdString(tls.key_file))
                   .toUtf8());
    file.close();
    QString out;
    const int rc = e2e::RunCtl(
        BuiltProgram("railyardctl"),
        {"watch", "--cluster", path, "--count", "1", "--token", testing::kTlsViewerToken}, &out);
    QVERIFY2(rc == 0, qPrintable(out));
    QVERIFY2(out.contains("behind-tls") && out.contains(testing::kTlsServiceMarker),
             qPrintable(out));
    // A flag overrides the file's field: the wrong CA now fails, and says why.
    const int refused =
        e2e::RunCtl(BuiltProgram("railyardctl"),
                    {"status", "--cluster", path, "--token", testing::kTlsViewerToken, "--tls-ca",
                     QString::fromStdString(fixture_->files().other_ca_cert)},
                    &out);
    QVERIFY2(refused == 4 && out.contains(kVerifyFailed), qPrintable(out));
  }

  void accessRulesGiveClearErrors() {
    cluster::ClusterAccess access;
    cluster::AccessRequest none;
    rpc::Status s = cluster::ResolveAccess(none, &access);
    QCOMPARE(s.code(), rpc::Code::kInvalidArgument);
    QVERIFY2(s.message().find("--node") != std::string::npos, s.message().c_str());

    cluster::AccessRequest bad;
    bad.nodes = {"no-port-here"};
    s = cluster::ResolveAccess(bad, &access);
    QVERIFY2(s.message().find("'no-port-here' is not host:port") != std::string::npos,
             s.message().c_str());

    const QString empty_tokens = dir_.filePath("empty-token");
    QFile file(empty_tokens);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("# only a comment\n");
    file.close();
    cluster::AccessRequest tokenless;
    tokenless.nodes = {"127.0.0.1:1"};
    tokenless.token_file = empty_tokens.toStdString();
    s = cluster::ResolveAccess(tokenless, &access);
    QVERIFY2(s.message().find("holds no token") != std::string::npos, s.message().c_str());

    // --tls alone turns TLS on with the system's CAs; given fields override the file's.
    cluster::TlsFlags flags;
    QVERIFY(!cluster::ApplyTlsFlags(flags, std::nullopt));
    flags.on = true;
    QVERIFY(cluster::ApplyTlsFlags(flags, std::nullopt).has_value());
    rpc::TlsClientOptions from_file;
    from_file.ca_file = "file-ca.pem";
    from_file.cert_file = "file-cert.pem";
    flags.ca_file = "flag-ca.pem";
    const auto merged = cluster::ApplyTlsFlags(flags, from_file);
    QCOMPARE(merged->ca_file, std::string("flag-ca.pem"));
    QCOMPARE(merged->cert_file, std::string("file-cert.pem"));
  }

 private:
  QTemporaryDir dir_;
  std::unique_ptr<TlsAdminFixture> fixture_;
};

RAILYARD_QTEST_GUILESS_MAIN(TlsAccessTest)
#include "tst_tls_access.moc"
