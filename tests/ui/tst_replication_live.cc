// SPDX-License-Identifier: Apache-2.0
// The replication view against real nodes on 127.0.0.1: an updater and a replica that follows it
// (in-process railyard nodes), polled by LiveSource; the console's Recorder writes what it saw,
// and the recording replays into the same view.
#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QTest>

#include "core/node/node.h"
#include "core/rpc/client.h"
#include "railyard/docservice.pb.h"
#include "tests/support/admin_tokens.h"
#include "tests/support/qtest_main.h"
#include "ui/models/overview_model.h"
#include "ui/models/replication_lag_model.h"
#include "ui/models/replication_model.h"
#include "ui/sources/live_source.h"
#include "ui/sources/recorder.h"
#include "ui/sources/replay_source.h"
#include "ui/views/qcustomplot_include.h"
#include "ui/views/replication_view.h"

using railyard::testing::kViewerToken;
using namespace railyard;
using namespace railyard::ui;

namespace {

constexpr char kReplication[] = "replication-token-replication-live";

std::unique_ptr<node::Node> OpenNode(const QString& dir, const std::string& name,
                                     const std::string& follow) {
  node::NodeOptions options;
  options.name = name;
  options.data_dir = dir.toStdString();
  options.io_threads = 1;
  options.worker_threads = 2;
  options.storage.doc_cache_bytes = 1 << 20;
  options.admin.viewer_tokens = {kViewerToken};
  options.replication.replica = !follow.empty();
  options.replication.follow = follow;
  options.replication.tokens = {kReplication};
  std::unique_ptr<node::Node> node;
  if (!node::Node::Open(options, &node).ok()) return nullptr;
  return node;
}

bool Put(rpc::Client& client, uint64_t first, int count) {
  for (int i = 0; i < count; ++i) {
    doc::PutRequest put;
    put.set_id(first + uint64_t(i));
    put.set_doc("document " + std::to_string(first + uint64_t(i)));
    if (!client.Call("doc.Put", put.SerializeAsString()).status.ok()) return false;
  }
  return true;
}

QVariant NodeCell(const ReplicationModel& model, int node, int column, int role = Qt::DisplayRole) {
  return model.index(model.RowOfNode(node), column).data(role);
}

// The replica's row says it is tailing with nothing left to apply, at `head` or beyond.
bool CaughtUp(const ReplicationModel& model, int replica, qulonglong head) {
  if (model.RowOfNode(replica) < 0) return false;
  const qulonglong applied =
      NodeCell(model, replica, ReplicationModel::kApplied, ReplicationModel::kSortRole)
          .toULongLong();
  return NodeCell(model, replica, ReplicationModel::kState).toString() == "tailing" &&
         NodeCell(model, replica, ReplicationModel::kLagDocs).toString() == "0" &&
         applied >= head &&
         applied == NodeCell(model, replica, ReplicationModel::kHead, ReplicationModel::kSortRole)
                        .toULongLong();
}

}  // namespace

class ReplicationLiveTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void aLiveReplicaIsShownRecordedAndReplayed() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::unique_ptr<node::Node> updater = OpenNode(dir.filePath("updater"), "updater", "");
    QVERIFY(updater);
    rpc::ClientOptions c;
    c.servers = {updater->endpoint()};
    c.pool_size = 2;
    c.client_name = "replication-live-writer";
    rpc::Client client(c);
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(1, std::chrono::seconds(5)));
    QVERIFY(Put(client, 1, 300));
    std::unique_ptr<node::Node> replica =
        OpenNode(dir.filePath("replica"), "replica", updater->endpoint().ToString());
    QVERIFY(replica);

    ClusterState state;
    ReplicationView view(&state);
    OverviewModel overview(&state);
    QAbstractItemModelTester tester(view.Model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.show();
    LiveSource source(&state);
    LiveSource::Options options;
    options.poll_hz = 20;
    source.SetOptions(options);
    const int u = source.AddNode(QString::fromStdString(updater->admin_endpoint().ToString()),
                                 kViewerToken, nullptr);
    const int r = source.AddNode(QString::fromStdString(replica->admin_endpoint().ToString()),
                                 kViewerToken, nullptr);
    QVERIFY(u >= 0 && r >= 0);
    Recorder recorder(&state);
    QString error;
    QVERIFY2(recorder.Start(dir.filePath("live.rec"), &error), qPrintable(error));
    source.Start();

    // The replica catches up with the 300 documents, then tails.
    QTRY_VERIFY_WITH_TIMEOUT(CaughtUp(*view.Model(), r, 1), 20000);
    const qulonglong head =
        NodeCell(*view.Model(), r, ReplicationModel::kHead, ReplicationModel::kSortRole)
            .toULongLong();
    // The two nodes answer each poll independently: the updater's row may come a poll later.
    QTRY_COMPARE_WITH_TIMEOUT(NodeCell(*view.Model(), u, ReplicationModel::kRole).toString(),
                              QString("updater"), 10000);
    QCOMPARE(NodeCell(*view.Model(), r, ReplicationModel::kRole).toString(), QString("replica"));
    QCOMPARE(NodeCell(*view.Model(), r, ReplicationModel::kFollows).toString(),
             QStringLiteral("updater (%1)").arg(updater->endpoint().ToString().c_str()));
    QTRY_COMPARE_WITH_TIMEOUT(NodeCell(*view.Model(), u, ReplicationModel::kFollows).toString(),
                              QString("followers: replica"), 10000);
    QCOMPARE(overview.index(u, OverviewModel::kStoreRole).data().toString(), QString("updater"));
    QCOMPARE(overview.index(u, OverviewModel::kLag).data().toString(), QString("1 follower"));
    // Lag in seconds is the node's own measure (how recent the last applied block was): as shown.
    QCOMPARE(overview.index(r, OverviewModel::kLag).data().toString(),
             QStringLiteral("0 docs, %1 s")
                 .arg(state.Node(r).telemetry->replication().lag_seconds(), 0, 'f', 1));

    // New writes reach the replica, and the view follows.
    QVERIFY(Put(client, 1001, 200));
    QTRY_VERIFY_WITH_TIMEOUT(CaughtUp(*view.Model(), r, head + 1), 20000);
    QVERIFY(view.GraphOf(r) != nullptr);
    QVERIFY(view.GraphOf(r)->data()->size() >= 2);
    QVERIFY(view.GraphOf(u) == nullptr);

    source.Stop();
    QCOMPARE(recorder.Stop(), QString());
    client.Stop();
    replica->Shutdown(std::chrono::milliseconds(200));
    updater->Shutdown(std::chrono::milliseconds(200));

    // The recording shows the same at its end, and plays the replica's lag into the plot.
    ClusterState replayed;
    ReplicationView replay_view(&replayed);
    replay_view.show();
    ReplaySource replay(&replayed);
    QVERIFY2(replay.Open(dir.filePath("live.rec"), &error), qPrintable(error));
    const int rr = replayed.IndexOfName("replica");
    const int ru = replayed.IndexOfName("updater");
    QVERIFY(rr >= 0 && ru >= 0);
    replay.SetTickIntervalMs(5);  // Steps shorter than the polling interval.
    while (replay.PositionMs() < replay.EndMs()) replay.Step();
    QVERIFY(CaughtUp(*replay_view.Model(), rr, head + 1));
    QCOMPARE(NodeCell(*replay_view.Model(), ru, ReplicationModel::kFollows).toString(),
             QString("followers: replica"));
    QVERIFY(replay_view.GraphOf(rr) != nullptr);
    QVERIFY(replay_view.GraphOf(rr)->data()->size() >= 2);
  }
};

RAILYARD_QTEST_MAIN(ReplicationLiveTest)
#include "tst_replication_live.moc"
