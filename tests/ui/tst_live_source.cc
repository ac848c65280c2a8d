// SPDX-License-Identifier: Apache-2.0
// LiveSource against a real node on 127.0.0.1: telemetry arrives through the worker thread;
// a stopped node turns unreachable without blocking the GUI thread and comes back when it is
// restarted on the same port; a wrong token is refused (and announced); Stop() drops batches in
// flight.
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "core/node/node.h"
#include "tests/support/admin_tokens.h"
#include "tests/support/qtest_main.h"
#include "ui/models/cluster_state.h"
#include "ui/sources/live_source.h"

using railyard::testing::kViewerToken;
using railyard::ui::ClusterState;
using railyard::ui::LiveSource;
using railyard::ui::NodeHealth;

namespace {

std::unique_ptr<railyard::node::Node> OpenNode(const QString& dir, uint16_t admin_port) {
  railyard::node::NodeOptions options;
  options.name = "live1";
  options.data_dir = dir.toStdString();
  options.io_threads = 1;
  options.worker_threads = 1;
  options.admin.port = admin_port;
  options.admin.viewer_tokens = {kViewerToken};
  std::unique_ptr<railyard::node::Node> node;
  if (!railyard::node::Node::Open(options, &node).ok()) return nullptr;
  return node;
}

LiveSource::Options FastOptions() {
  LiveSource::Options o;
  o.poll_hz = 20;
  o.backoff_min = std::chrono::milliseconds(50);
  o.backoff_max = std::chrono::milliseconds(400);
  o.connect_timeout = std::chrono::milliseconds(500);
  o.answer_timeout = std::chrono::milliseconds(500);
  return o;
}

}  // namespace

class LiveSourceTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void telemetryArrivesAndNodesComeBack() {
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> node = OpenNode(dir.filePath("n"), 0);
    QVERIFY(node);
    const uint16_t admin_port = node->admin_endpoint().port;
    const QString address = QString("127.0.0.1:%1").arg(admin_port);

    ClusterState state;
    LiveSource source(&state);
    source.SetOptions(FastOptions());
    QString error;
    QCOMPARE(source.AddNode(address, kViewerToken, &error), 0);
    source.Start();
    QTRY_VERIFY_WITH_TIMEOUT(state.Node(0).health == NodeHealth::kServing, 10000);
    QVERIFY(state.Node(0).telemetry);
    QCOMPARE(state.Node(0).name, QString("live1"));
    QCOMPARE(QString::fromStdString(state.Node(0).telemetry->admin_address()), address);
    // Polls keep coming, one batch each.
    const uint64_t sequence = state.Node(0).telemetry->sequence();
    QTRY_VERIFY_WITH_TIMEOUT(state.Node(0).telemetry->sequence() > sequence + 2, 10000);

    // Stopped: unreachable, with a reason, and the event loop keeps turning meanwhile.
    node->Shutdown(std::chrono::milliseconds(200));
    node.reset();
    QTRY_VERIFY_WITH_TIMEOUT(state.Node(0).health == NodeHealth::kUnreachable, 10000);
    QVERIFY(!state.Node(0).last_error.isEmpty());
    QVERIFY(state.Node(0).telemetry);  // The last known figures stay visible.
    QElapsedTimer loop;
    loop.start();
    int turns = 0;
    while (loop.elapsed() < 300) {
      QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
      ++turns;
    }
    QVERIFY(turns > 3);

    // Restarted on the same admin port: back, with fresh telemetry.
    node = OpenNode(dir.filePath("n"), admin_port);
    QVERIFY2(node, "could not reopen the node on its port");
    QTRY_VERIFY_WITH_TIMEOUT(state.Node(0).health == NodeHealth::kServing, 15000);
    QVERIFY(state.Node(0).last_error.isEmpty());
    source.Stop();
    node->Shutdown(std::chrono::milliseconds(200));
  }

  void aWrongTokenIsRefusedNotServed() {
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> node = OpenNode(dir.filePath("n"), 0);
    QVERIFY(node);
    ClusterState state;
    LiveSource source(&state);
    source.SetOptions(FastOptions());
    source.AddNode(QString("127.0.0.1:%1").arg(node->admin_endpoint().port), "not-the-token");
    QSignalSpy refused(&source, &LiveSource::TokenRefused);
    source.Start();
    // Refused, not unreachable: the node is fine, the token is not.
    QTRY_VERIFY_WITH_TIMEOUT(state.Node(0).health == NodeHealth::kTokenRefused, 10000);
    QVERIFY2(state.Node(0).last_error.contains("UNAUTHENTICATED"),
             qPrintable(state.Node(0).last_error));
    QCOMPARE(refused.count(), 1);
    QCOMPARE(refused[0][0].toInt(), 0);
    // The right token, set while running, gets telemetry through.
    source.SetToken(0, kViewerToken);
    QTRY_VERIFY_WITH_TIMEOUT(state.Node(0).health == NodeHealth::kServing, 10000);
    source.Stop();
  }

  void badAddressesAreRejectedClearly() {
    ClusterState state;
    LiveSource source(&state);
    QString error;
    QCOMPARE(source.AddNode("no-port-here", {}, &error), -1);
    QVERIFY(error.contains("host:port"));
    QCOMPARE(source.AddNode("127.0.0.1:99999", {}, &error), -1);
    QCOMPARE(state.NodeCount(), 0);
  }

  void stopDropsBatchesAlreadyPosted() {
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> node = OpenNode(dir.filePath("n"), 0);
    QVERIFY(node);
    ClusterState state;
    LiveSource source(&state);
    source.SetOptions(FastOptions());
    source.AddNode(QString("127.0.0.1:%1").arg(node->admin_endpoint().port), kViewerToken);
    source.Start();
    QTRY_VERIFY_WITH_TIMEOUT(source.FramesApplied() > 2, 10000);
    // Let the worker post while the GUI thread is busy, then stop before delivering.
    QThread::msleep(200);
    source.Stop();
    const quint64 frames = source.FramesApplied();
    QCoreApplication::processEvents();
    QCOMPARE(source.FramesApplied(), frames);
    QVERIFY(!source.Running());
  }

  void anUnreachableAddressNeverBlocksTheWindow() {
    // Nothing listens on this port (bound then released): connects are refused at once.
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> probe = OpenNode(dir.filePath("p"), 0);
    QVERIFY(probe);
    const uint16_t dead_port = probe->admin_endpoint().port;
    probe->Shutdown(std::chrono::milliseconds(100));
    probe.reset();
    std::unique_ptr<railyard::node::Node> node = OpenNode(dir.filePath("n"), 0);
    QVERIFY(node);
    ClusterState state;
    LiveSource source(&state);
    source.SetOptions(FastOptions());
    source.AddNode(QString("127.0.0.1:%1").arg(dead_port), kViewerToken);
    source.AddNode(QString("127.0.0.1:%1").arg(node->admin_endpoint().port), kViewerToken);
    source.Start();
    // The live node is served while the dead one backs off.
    QTRY_VERIFY_WITH_TIMEOUT(state.Node(1).health == NodeHealth::kServing &&
                                 state.Node(0).health == NodeHealth::kUnreachable,
                             10000);
    source.Stop();
  }
};

RAILYARD_QTEST_GUILESS_MAIN(LiveSourceTest)
#include "tst_live_source.moc"
