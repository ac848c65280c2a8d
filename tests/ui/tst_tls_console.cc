// SPDX-License-Identifier: Apache-2.0
// The console against an admin service that requires TLS with a client certificate: with the
// --tls flags (MainWindow::Options::tls) or a cluster file's admin_tls it watches the node and
// acts on it over TLS; with a CA that does not match, the node is unreachable and says why.
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "tests/cluster/tls_admin_fixture.h"
#include "tests/support/qtest_main.h"
#include "ui/actions/action_controller.h"
#include "ui/shell/main_window.h"

using namespace railyard;
using namespace railyard::ui;
using railyard::testing::TlsAdminFixture;

class TlsConsoleTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    fixture_ = std::make_unique<TlsAdminFixture>(dir_.path().toStdString());
    QVERIFY2(fixture_->started().ok(), fixture_->started().ToString().c_str());
  }

  void watchesAndActsOverTlsWithTheFlags() {
    MainWindow window(Options(TlsAdminFixture::FlagsFor(fixture_->GoodClient())));
    QString error;
    QVERIFY2(window.AddNode(Address(), railyard::testing::kTlsViewerToken, &error),
             qPrintable(error));
    const ClusterState* state = window.State();
    QTRY_VERIFY_WITH_TIMEOUT(state->Node(0).health == NodeHealth::kServing, 10000);
    QCOMPARE(state->Node(0).telemetry->service_address(),
             std::string(railyard::testing::kTlsServiceMarker));

    // An action goes over TLS too: the service answers it (and refuses a viewer's drain), where
    // plain TCP would not have reached it at all.
    ActionController* actions = window.action_controller();
    actions->SetConfirmer([](const QString&, const QString&) { return true; });
    actions->SetResultPresenter([](const QString&, const QString&, bool) {});
    QSignalSpy finished(actions, &ActionController::ActionFinished);
    actions->Drain(0);
    QVERIFY(finished.wait(15000));
    const auto event = finished[0][0].value<admin::CommandEvent>();
    QVERIFY2(QString::fromStdString(event.result()).contains("needs an operator token"),
             event.result().c_str());
  }

  void aCaThatDoesNotMatchSaysWhy() {
    MainWindow window(Options(TlsAdminFixture::FlagsFor(fixture_->WrongCaClient())));
    QVERIFY(window.AddNode(Address(), railyard::testing::kTlsViewerToken, nullptr));
    const ClusterState* state = window.State();
    QTRY_VERIFY_WITH_TIMEOUT(state->Node(0).health == NodeHealth::kUnreachable, 10000);
    QVERIFY2(state->Node(0).last_error.contains("certificate verify failed"),
             qPrintable(state->Node(0).last_error));
  }

  void honoursAClusterFilesAdminTls() {
    const rpc::TlsClientOptions tls = fixture_->GoodClient();
    const QString path = dir_.filePath("tls-cluster.textproto");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QStringLiteral("node { name: \"behind-tls\" admin: \"%1\" }\n"
                              "admin_tls { ca_file: \"%2\" cert_file: \"%3\" key_file: \"%4\" }\n")
                   .arg(Address(), QString::fromStdString(tls.ca_file),
                        QString::fromStdString(tls.cert_file), QString::fromStdString(tls.key_file))
                   .toUtf8());
    file.close();
    MainWindow window(Options({}));
    QString error;
    QVERIFY2(window.OpenClusterFile(path, railyard::testing::kTlsViewerToken, &error),
             qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(window.State()->Node(0).health == NodeHealth::kServing, 10000);
    QCOMPARE(window.State()->Node(0).telemetry->node(),
             std::string(railyard::testing::kTlsNodeName));
  }

 private:
  QString Address() const { return QString::fromStdString(fixture_->address()); }
  MainWindow::Options Options(cluster::TlsFlags tls) const {
    MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir_.filePath("audit.sqlite");
    options.tls = std::move(tls);
    return options;
  }

  QTemporaryDir dir_;
  std::unique_ptr<TlsAdminFixture> fixture_;
};

RAILYARD_QTEST_MAIN(TlsConsoleTest)
#include "tst_tls_console.moc"
