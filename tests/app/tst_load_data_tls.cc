// SPDX-License-Identifier: Apache-2.0
// `railyardctl load --data-tls*` against a real node whose docservice takes mutual TLS: a client
// certificate its CA signed carries a read and write load (a verified certificate is a writer
// without a token); without a certificate, or without TLS at all, nothing connects (exit 4) and
// the error says why; a certificate without its key is a usage error (exit 2). `railyardctl get`
// reads a document's bytes over the same TLS.
#include <QTemporaryDir>
#include <QTest>

#include "core/node/node.h"
#include "railyard/docservice.boxcar.h"
#include "tests/app/short_load.h"
#include "tests/rpc/tls_test_certs.h"
#include "tests/support/qtest_main.h"

using namespace railyard;

class LoadDataTlsTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  rpc::testing::TlsTestFiles certs_;
  std::unique_ptr<node::Node> node_;

  int Load(const QStringList& extra, QString* out) {
    return railyard::testing::ShortLoad(node_->endpoint(), extra, out);
  }

  // `railyardctl get ARGS`: its exit code (-1 if it did not end in 30 s), its output in `out`.
  static int Get(const QStringList& args, QString* out) {
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(railyard::testing::BuiltProgram("railyardctl"), QStringList{"get"} + args);
    if (!process.waitForFinished(30000)) return -1;
    *out = QString::fromUtf8(process.readAllStandardOutput());
    return process.exitCode();
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    certs_ = rpc::testing::MakeTlsTestFiles(dir_.path().toStdString());
    node::NodeOptions options;
    options.name = "tls-target";
    options.data_dir = dir_.filePath("node").toStdString();
    options.io_threads = 1;
    options.worker_threads = 2;
    options.tls =
        rpc::TlsServerOptions{certs_.server_cert, certs_.server_key, certs_.ca_cert, true};
    QVERIFY(node::Node::Open(options, &node_).ok());
  }

  void cleanupTestCase() {
    if (node_) node_->Shutdown(std::chrono::milliseconds(200));
  }

  void aClientCertificateCarriesTheLoad() {
    QString out;
    const int rc = Load({"--data-tls-ca", QString::fromStdString(certs_.ca_cert), "--data-tls-cert",
                         QString::fromStdString(certs_.client_cert), "--data-tls-key",
                         QString::fromStdString(certs_.client_key)},
                        &out);
    QVERIFY2(rc == 0, qPrintable(out));  // Exit 0: no call failed.
  }

  // Nothing connects (exit 4, unreachable), and the reason is the handshake's own.
  void withoutACertificateOrTlsNothingConnects() {
    QString out;
    int rc = Load({"--data-tls-ca", QString::fromStdString(certs_.ca_cert)}, &out);
    QVERIFY2(rc == 4 && out.contains("certificate required"), qPrintable(out));
    rc = Load({}, &out);
    QVERIFY2(rc == 4 && out.contains("does the server require TLS?"), qPrintable(out));
  }

  void getReadsADocumentOverTls() {
    rpc::ClientOptions options;
    options.servers = {node_->endpoint()};
    options.pool_size = 1;
    options.tls =
        rpc::TlsClientOptions{certs_.ca_cert, true, "", certs_.client_cert, certs_.client_key};
    rpc::Client writer(options);
    QVERIFY(writer.Start().ok());
    QVERIFY(writer.WaitForPool(1, std::chrono::seconds(10)));
    doc::PutRequest put;
    put.set_id(4242);
    put.set_doc("read over TLS");
    doc::PutResponse put_response;
    const rpc::CallResult wrote =
        doc::DocService::Stub(writer).Put(put, &put_response, std::chrono::seconds(5));
    QVERIFY2(wrote.status.ok(), wrote.status.ToString().c_str());

    const QString admin = QString::fromStdString(node_->admin_endpoint().ToString());
    const QStringList tls = {"--data-tls-ca",   QString::fromStdString(certs_.ca_cert),
                             "--data-tls-cert", QString::fromStdString(certs_.client_cert),
                             "--data-tls-key",  QString::fromStdString(certs_.client_key)};
    QString out;
    QCOMPARE(Get(QStringList{"4242", "-n", admin} + tls, &out), 0);
    QVERIFY2(out.contains("read over TLS"), qPrintable(out));
    // Without TLS the read cannot reach the docservice, and says so.
    const int rc = Get({"4242", "-n", admin, "--timeout", "2s"}, &out);
    QVERIFY2(rc == 4 && !out.contains("read over TLS"), qPrintable(out));
  }

  void aCertificateWithoutItsKeyIsAUsageError() {
    QString out;
    QCOMPARE(Load({"--data-tls-cert", QString::fromStdString(certs_.client_cert)}, &out), 2);
    QVERIFY2(out.contains("--data-tls-cert and --data-tls-key go together"), qPrintable(out));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(LoadDataTlsTest)
#include "tst_load_data_tls.moc"
