// SPDX-License-Identifier: Apache-2.0
// railyard-node as a Type=notify service: it says READY=1 once it serves (not merely listens),
// pings the watchdog from its main loop, brackets a SIGHUP reload with RELOADING=1 and READY=1,
// says STOPPING=1 when SIGTERM starts the drain, and exits 0. The test is systemd's side of the
// protocol: a datagram socket named by NOTIFY_SOCKET.
#include <signal.h>

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <asio.hpp>

#include "core/cluster/admin_client.h"
#include "core/rpc/client.h"
#include "tests/app/unix_datagram.h"
#include "tests/support/free_port.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

using namespace railyard;
using railyard::testing::FreePort;
using namespace std::chrono_literals;

namespace {

// The next message that contains `what`, skipping others (collected into `seen`); empty if none
// came within about 30 s (generous, for a loaded machine).
QByteArray WaitFor(UnixDatagram& socket, const QByteArray& what, QList<QByteArray>* seen) {
  for (int i = 0; i < 300; ++i) {
    const QByteArray message = socket.Receive(100);
    if (message.isEmpty()) continue;
    seen->append(message);
    if (message.contains(what)) return message;
  }
  return {};
}

// Starts railyard-node with `args`, telling it to notify `socket`; reads its LISTEN line.
struct NodeProcess {
  QProcess process;
  uint16_t service_port = 0, admin_port = 0;

  bool Start(const QStringList& args, const QByteArray& socket) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("NOTIFY_SOCKET");
    if (!socket.isEmpty()) env.insert("NOTIFY_SOCKET", socket);
    process.setProcessEnvironment(env);
    process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    process.start(BuiltProgram("railyard-node"), args + QStringList{"--listen", "127.0.0.1:0"});
    if (!process.waitForStarted(10000) || !process.waitForReadyRead(30000)) return false;
    const QRegularExpressionMatch m =
        QRegularExpression(R"(LISTEN 127\.0\.0\.1:(\d+) ADMIN 127\.0\.0\.1:(\d+))")
            .match(QString::fromUtf8(process.readLine()));
    service_port = uint16_t(m.captured(1).toUInt());
    admin_port = uint16_t(m.captured(2).toUInt());
    return m.hasMatch();
  }
  ~NodeProcess() {
    if (process.state() == QProcess::NotRunning) return;
    ::kill(pid_t(process.processId()), SIGKILL);
    process.waitForFinished(5000);
  }
  admin::Telemetry Telemetry() const {
    cluster::AdminClient admin({"127.0.0.1", admin_port}, "", "tst_node_notify");
    admin::Telemetry telemetry;
    if (admin.Connect(5s).ok()) admin.Telemetry(&telemetry);
    return telemetry;
  }
};

}  // namespace

class NodeNotifyTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void tellsSystemdWhenItServesReloadsAndStops() {
    QTemporaryDir dir;
    const QByteArray path = dir.filePath("notify").toUtf8();
    UnixDatagram systemd(path);
    QVERIFY(systemd.ok());

    QProcess node;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("NOTIFY_SOCKET", path);
    env.insert("WATCHDOG_USEC", "200000");  // A ping every 100 ms.
    node.setProcessEnvironment(env);
    node.start(BuiltProgram("railyard-node"), {"--data-dir", dir.filePath("data"), "--listen",
                                               "127.0.0.1:0", "--name", "notified"});
    QVERIFY(node.waitForStarted(5000));
    const auto stop = qScopeGuard([&] {
      if (node.state() == QProcess::NotRunning) return;
      ::kill(pid_t(node.processId()), SIGKILL);
      node.waitForFinished(5000);
    });

    QList<QByteArray> seen;
    const QByteArray ready = WaitFor(systemd, "READY=1", &seen);
    QVERIFY2(!ready.isEmpty(), qPrintable(seen.join(" | ")));
    QVERIFY2(ready.contains("STATUS=serving on 127.0.0.1:"), ready.constData());

    // By the time it said READY=1, it serves: telemetry says so, and a Boxcar call is answered.
    QVERIFY(node.waitForReadyRead(5000) || node.canReadLine());
    const QString listen = QString::fromUtf8(node.readLine());
    const QRegularExpressionMatch m =
        QRegularExpression(R"(LISTEN 127\.0\.0\.1:(\d+) ADMIN 127\.0\.0\.1:(\d+))").match(listen);
    QVERIFY2(m.hasMatch(), qPrintable(listen));
    cluster::AdminClient admin({"127.0.0.1", uint16_t(m.captured(2).toUInt())}, "",
                               "tst_node_notify");
    QVERIFY(admin.Connect(5s).ok());
    admin::Telemetry telemetry;
    QVERIFY(admin.Telemetry(&telemetry).ok());
    QCOMPARE(telemetry.state(), admin::NODE_SERVING);
    rpc::ClientOptions options;
    options.servers = {{"127.0.0.1", uint16_t(m.captured(1).toUInt())}};
    options.pool_size = 1;
    rpc::Client client(options);
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(1, 10s));
    const rpc::CallResult answer = client.Call("doc.Get", "");
    QVERIFY2(answer.status.code() != rpc::Code::kUnavailable, answer.status.ToString().c_str());
    QCOMPARE(answer.attempts, 1);

    // The watchdog keeps hearing from it.
    for (int ping = 0; ping < 3; ++ping) {
      QVERIFY2(!WaitFor(systemd, "WATCHDOG=1", &seen).isEmpty(), qPrintable(seen.join(" | ")));
    }

    ::kill(pid_t(node.processId()), SIGHUP);
    QVERIFY2(!WaitFor(systemd, "RELOADING=1", &seen).isEmpty(), qPrintable(seen.join(" | ")));
    const QByteArray reloaded = WaitFor(systemd, "READY=1", &seen);
    QVERIFY2(reloaded.contains("STATUS=serving on"), qPrintable(seen.join(" | ")));

    ::kill(pid_t(node.processId()), SIGTERM);
    QVERIFY2(!WaitFor(systemd, "STOPPING=1", &seen).isEmpty(), qPrintable(seen.join(" | ")));
    QVERIFY(node.waitForFinished(20000));
    QCOMPARE(node.exitStatus(), QProcess::NormalExit);
    QCOMPARE(node.exitCode(), 0);
  }

  // A replica is ready once it has caught up with its updater, not when it listens.
  void aReplicaIsReadyOnceCaughtUp() {
    QTemporaryDir dir;
    QFile token(dir.filePath("replication.token"));
    QVERIFY(token.open(QIODevice::WriteOnly));
    token.write("notify-replication-token\n");
    token.close();
    NodeProcess updater;
    QVERIFY(updater.Start(
        {"--data-dir", dir.filePath("updater"), "--replication-token-file", token.fileName()}, {}));
    const QByteArray path = dir.filePath("notify").toUtf8();
    UnixDatagram systemd(path);
    QVERIFY(systemd.ok());
    NodeProcess replica;
    QVERIFY(replica.Start({"--data-dir", dir.filePath("replica"), "--role", "replica", "--follow",
                           QString("127.0.0.1:%1").arg(updater.service_port),
                           "--replication-token-file", token.fileName()},
                          path));
    QList<QByteArray> seen;
    QVERIFY2(!WaitFor(systemd, "READY=1", &seen).isEmpty(), qPrintable(seen.join(" | ")));
    const admin::Telemetry telemetry = replica.Telemetry();
    QCOMPARE(telemetry.state(), admin::NODE_SERVING);
    QCOMPARE(telemetry.replication().state(), admin::REPLICA_TAILING);  // Caught up.
  }

  // One that cannot reach its updater says it is starting, and not READY=1.
  void aReplicaThatCannotCatchUpSaysStarting() {
    QTemporaryDir dir;
    QFile token(dir.filePath("replication.token"));
    QVERIFY(token.open(QIODevice::WriteOnly));
    token.write("notify-replication-token\n");
    token.close();
    const QByteArray path = dir.filePath("notify").toUtf8();
    UnixDatagram systemd(path);
    QVERIFY(systemd.ok());
    NodeProcess replica;
    QVERIFY(replica.Start(
        {"--data-dir", dir.filePath("replica"), "--role", "replica", "--follow",
         QString("127.0.0.1:%1").arg(FreePort()), "--replication-token-file", token.fileName()},
        path));
    QList<QByteArray> seen;
    const QByteArray first = WaitFor(systemd, "STATUS=", &seen);
    QVERIFY2(first.startsWith("STATUS=starting"), first.constData());
    QVERIFY(!first.contains("READY=1"));
    QCOMPARE(replica.Telemetry().state(), admin::NODE_STARTING);
  }

  // Without NOTIFY_SOCKET it sends nothing (and starts and stops as before).
  void saysNothingWithoutNotifySocket() {
    QTemporaryDir dir;
    QProcess node;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("NOTIFY_SOCKET");
    node.setProcessEnvironment(env);
    node.start(BuiltProgram("railyard-node"),
               {"--data-dir", dir.filePath("data"), "--listen", "127.0.0.1:0"});
    QVERIFY(node.waitForStarted(5000));
    QVERIFY(node.waitForReadyRead(30000));
    QVERIFY(node.readLine().startsWith("LISTEN "));
    ::kill(pid_t(node.processId()), SIGTERM);
    QVERIFY(node.waitForFinished(20000));
    QCOMPARE(node.exitCode(), 0);
    QVERIFY(!node.readAllStandardError().contains("sd_notify"));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(NodeNotifyTest)
#include "tst_node_notify.moc"
