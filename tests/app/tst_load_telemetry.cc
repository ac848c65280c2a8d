// `railyardctl load --admin-listen` as a console sees it, with real processes: its telemetry
// carries the client's own figures (rate, POOL_EXHAUSTED rejections, client-seen latency) under
// a real load on a real node, and its admin service takes tokens as a node's does: the token
// files it was given, or, with none, any caller whatever token it presents (bug B21).
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "core/cluster/admin_client.h"
#include "core/node/node.h"

using namespace railyard;

namespace {

constexpr char kViewer[] = "load-viewer-token";
constexpr char kOperator[] = "load-operator-token";

// A load of many callers on a pool of one connection, so POOL_EXHAUSTED happens all the time.
class LoadProcess {
 public:
  bool Start(uint16_t service_port, const QStringList& extra) {
    QStringList args = {"load",
                        "-s",
                        QString("127.0.0.1:%1").arg(service_port),
                        "--pool-size",
                        "1",
                        "--concurrency",
                        "16",
                        "--duration-s",
                        "120",
                        "--admin-listen",
                        "127.0.0.1:0"};
    args << extra;
    process_.start(RAILYARDCTL, args);
    if (!process_.waitForStarted(5000)) return false;
    // "load: telemetry on 127.0.0.1:PORT" on stderr once the admin service listens.
    const QRegularExpression line(R"(load: telemetry on 127\.0\.0\.1:(\d+))");
    QString err;
    for (int i = 0; i < 200 && port_ == 0; ++i) {
      process_.waitForReadyRead(100);
      err += QString::fromUtf8(process_.readAllStandardError());
      const QRegularExpressionMatch m = line.match(err);
      if (m.hasMatch()) port_ = static_cast<uint16_t>(m.captured(1).toUInt());
      if (process_.state() != QProcess::Running) break;
    }
    if (port_ == 0) qWarning("railyardctl load said: %s", qPrintable(err));
    return port_ != 0;
  }
  ~LoadProcess() {
    process_.terminate();
    if (!process_.waitForFinished(15000)) process_.kill();
  }
  rpc::Endpoint admin() const { return {"127.0.0.1", port_}; }

  // The telemetry answer to `token`, or why it was refused.
  rpc::Status Ask(const std::string& token, admin::Telemetry* telemetry) const {
    cluster::AdminClient client(admin(), token, "tst_load_telemetry");
    if (rpc::Status s = client.Connect(std::chrono::seconds(5)); !s.ok()) return s;
    return client.Telemetry(telemetry);
  }

 private:
  QProcess process_;
  uint16_t port_ = 0;
};

}  // namespace

class LoadTelemetryTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    node::NodeOptions options;
    options.name = "load-target";
    options.data_dir = dir_.filePath("node").toStdString();
    options.io_threads = 1;
    options.worker_threads = 2;
    QVERIFY(node::Node::Open(options, &node_).ok());
    for (const auto& [name, token] :
         {std::pair{"viewer.token", kViewer}, std::pair{"operator.token", kOperator}}) {
      QFile file(dir_.filePath(name));
      QVERIFY(file.open(QIODevice::WriteOnly));
      file.write(QByteArray(token) + "\n");
    }
  }

  void cleanupTestCase() {
    if (node_) node_->Shutdown(std::chrono::milliseconds(200));
    node_.reset();
  }

  // Without token files the service is open: no token, and any token, are both let in.
  void openEndpointAcceptsAnyTokenAndReportsClientFigures() {
    LoadProcess load;
    QVERIFY(load.Start(node_->endpoint().port, {}));
    admin::Telemetry t;
    for (const std::string token : {"", kOperator, "a token this process never heard of"}) {
      const rpc::Status s = load.Ask(token, &t);
      QVERIFY2(s.ok(), qPrintable(QString::fromStdString(token + ": " + s.ToString())));
      QCOMPARE(t.role(), admin::ROLE_CLIENT);
    }
    // The client's own figures arrive: calls made, POOL_EXHAUSTED refusals, client-seen p99.
    QTRY_VERIFY_WITH_TIMEOUT(load.Ask("", &t).ok() && t.pools_size() == 1 &&
                                 t.pools(0).throughput().requests_per_s() > 0 &&
                                 t.pools(0).throughput().rejections_per_s() > 0 &&
                                 t.pools(0).throughput().p99_us() > 0,
                             20000);
    const admin::ClientThroughput& figures = t.pools(0).throughput();
    QVERIFY(figures.max_us() >= figures.p99_us() && figures.p99_us() >= figures.p50_us());
    QVERIFY(t.pools(0).counters().rejections() > 0);
  }

  // With token files it behaves as a node's admin service: their tokens, and nothing else.
  void tokenFilesAreHonoured() {
    LoadProcess load;
    QVERIFY(load.Start(node_->endpoint().port,
                       {"--admin-viewer-token-file", dir_.filePath("viewer.token"),
                        "--admin-operator-token-file", dir_.filePath("operator.token")}));
    admin::Telemetry t;
    QVERIFY(load.Ask(kOperator, &t).ok());
    QCOMPARE(t.role(), admin::ROLE_CLIENT);
    QVERIFY(load.Ask(kViewer, &t).ok());
    QCOMPARE(load.Ask("", &t).code(), rpc::Code::kUnauthenticated);
    QCOMPARE(load.Ask("wrong", &t).code(), rpc::Code::kUnauthenticated);
  }

  void helpSaysTheEndpointIsOpenWithoutTokenFiles() {
    QProcess process;
    process.start(RAILYARDCTL, {"load", "--help"});
    QVERIFY(process.waitForFinished(10000));
    const QString help = QString::fromUtf8(process.readAllStandardOutput()).simplified();
    QVERIFY2(help.contains("--admin-operator-token-file") && help.contains("it is open"),
             qPrintable(help));
  }

 private:
  QTemporaryDir dir_;
  std::unique_ptr<node::Node> node_;
};

QTEST_GUILESS_MAIN(LoadTelemetryTest)
#include "tst_load_telemetry.moc"
