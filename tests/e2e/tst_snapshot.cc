// SPDX-License-Identifier: Apache-2.0
// `railyardctl snapshot` on real nodes: a replica's store copied at one queue position into its
// data folder's snapshots/ (operator token; a viewer's, a bad name and a taken one refused, said
// so), and a new replica started on that folder: it resumes at the snapshot's position without
// fetching the queue before it, follows its updater from there and ends holding every document
// as the updater does. A node without a store (a load client) says so.
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "tests/e2e/replication_support.h"
#include "tests/support/load_process.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using namespace railyard;
using namespace railyard::e2e;
using railyard::testing::BuiltProgram;

class SnapshotTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString cluster_file_;
  std::unique_ptr<NodeProcess> updater_, replica_, fresh_;
  railyard::testing::LoadProcess load_;

  int Snapshot(const QStringList& args, QString* out, const QString& token = kOperatorToken) {
    return RunCtl(BuiltProgram("railyardctl"),
                  QStringList{"snapshot", "--cluster", cluster_file_, "--token", token} << args,
                  out);
  }

  // Every id in [first, last] as the updater holds it, on `node`; empty, else the first
  // difference.
  QString SameDocuments(const NodeProcess& node, uint64_t first, uint64_t last) {
    std::unique_ptr<rpc::Client> from = ConnectTo(*updater_);
    std::unique_ptr<rpc::Client> to = ConnectTo(node);
    if (!from || !to) return "no connection";
    for (uint64_t id = first; id <= last; ++id) {
      std::optional<std::string> want, got;
      const rpc::CallResult a = Get(*from, id, 0, &want);
      const rpc::CallResult b = Get(*to, id, 0, &got);
      if (!a.status.ok() || !b.status.ok()) {
        return QString("id %1: %2 / %3")
            .arg(id)
            .arg(a.status.ToString().c_str(), b.status.ToString().c_str());
      }
      if (want != got) return QString("id %1 differs").arg(id);
    }
    return {};
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QVERIFY(WriteTokenFiles(dir_.path()));
    updater_ = StartNodeIn(dir_.path(), "updater", UpdaterArgs(dir_.path()));
    QVERIFY(updater_);
    replica_ = StartNodeIn(dir_.path(), "replica", ReplicaArgs(dir_.path(), *updater_));
    QVERIFY(replica_);
    QVERIFY(load_.Start({"--updater", updater_->service_address(), "--read-fraction", "1", "--rate",
                         "20", "--keys", "10"}));
    cluster_file_ = dir_.filePath("cluster.textproto");
    QFile file(cluster_file_);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QString("name: \"snapshots\"\n"
                       "node { name: \"updater\" admin: \"%1\" }\n"
                       "node { name: \"replica\" admin: \"%2\" }\n"
                       "node { name: \"load\" admin: \"%3\" }\n")
                   .arg(updater_->admin_address(), replica_->admin_address(), load_.admin())
                   .toUtf8());
  }

  void aNewReplicaStartsFromASnapshotOfAnother() {
    std::unique_ptr<rpc::Client> writer = ConnectTo(*updater_);
    QVERIFY(writer);
    uint64_t position = 0;
    for (uint64_t id = 1; id <= 600; ++id) {
      QVERIFY(Put(*writer, id, "before the snapshot " + std::to_string(id), &position).ok());
    }
    const QString lag = WaitCaughtUp(*updater_, {replica_.get()}, position);
    QVERIFY2(lag.isEmpty(), qPrintable(lag));

    QString out;
    QCOMPARE(Snapshot({"replica", "--name", "base", "--json"}, &out), 0);
    const QJsonObject taken = QJsonDocument::fromJson(out.toUtf8()).object()["snapshot"].toObject();
    const QString path = taken["path"].toString();
    const uint64_t at = taken["position"].toVariant().toULongLong();
    QCOMPARE(path, QDir(DataDirOf(dir_.path(), "replica")).filePath("snapshots/base"));
    QVERIFY2(at >= position, qPrintable(out));
    QVERIFY(taken["files_linked"].toVariant().toULongLong() > 0);
    QVERIFY(QFile::exists(path + "/MANIFEST"));

    // The updater writes on while the new replica is not there yet.
    for (uint64_t id = 301; id <= 900; ++id) {
      QVERIFY(Put(*writer, id, "after the snapshot " + std::to_string(id), &position).ok());
    }

    // A new replica on the snapshot (moved, as the help says: the links stay links).
    const QString data = DataDirOf(dir_.path(), "fresh");
    QVERIFY(QDir().rename(path, data));
    NodeProcessOptions options =
        NodeOptions(dir_.path(), "fresh", ReplicaArgs(dir_.path(), *updater_));
    options.data_dir = data;
    fresh_ = std::make_unique<NodeProcess>(options);
    QString error;
    QVERIFY2(fresh_->Start(0, 0, &error), qPrintable(error));
    // It resumed where the snapshot was taken: nothing before that position was fetched.
    const QString resumed = QString("resuming at queue position %1").arg(at);
    QVERIFY2(WaitFor([&] {
               QFile log(LogOf(dir_.path(), "fresh"));
               return log.open(QIODevice::ReadOnly) &&
                      QString::fromUtf8(log.readAll()).contains(resumed);
             }),
             qPrintable(resumed));
    const QString caught_up = WaitCaughtUp(*updater_, {fresh_.get()}, position);
    QVERIFY2(caught_up.isEmpty(), qPrintable(caught_up));
    const QString same = SameDocuments(*fresh_, 1, 900);
    QVERIFY2(same.isEmpty(), qPrintable(same));
    // The replica the snapshot came from is untouched and still follows.
    QVERIFY(WaitCaughtUp(*updater_, {replica_.get()}, position).isEmpty());
  }

  void refusalsSayWhy() {
    QString out;
    QCOMPARE(Snapshot({"replica", "--name", "base2"}, &out, kViewerToken), 3);
    QVERIFY2(out.contains("operator token"), qPrintable(out));
    QCOMPARE(Snapshot({"replica", "--name", "../elsewhere"}, &out), 1);
    QVERIFY2(out.contains("is not a snapshot name"), qPrintable(out));
    QCOMPARE(Snapshot({"replica", "--name", "taken"}, &out), 0);
    QVERIFY2(out.contains("snapshot of replica (replica) at queue position") &&
                 out.contains("files linked"),
             qPrintable(out));
    QCOMPARE(Snapshot({"replica", "--name", "taken"}, &out), 1);
    QVERIFY2(out.contains("exists already"), qPrintable(out));
    QCOMPARE(Snapshot({"load", "--name", "x"}, &out), 3);
    QVERIFY2(out.contains("load has no document store"), qPrintable(out));
    QCOMPARE(Snapshot({"nosuchnode"}, &out), 2);
    QVERIFY2(out.contains("no node nosuchnode in the cluster"), qPrintable(out));
  }

  void cleanupTestCase() {
    load_.Stop();
    fresh_.reset();
    replica_.reset();
    updater_.reset();
  }
};

RAILYARD_QTEST_GUILESS_MAIN(SnapshotTest)
#include "tst_snapshot.moc"
