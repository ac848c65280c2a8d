// SPDX-License-Identifier: Apache-2.0
// "Which replicas hold the newest copy of this document?" on real railyard-node processes:
// admin.Locate through cluster::LocateEverywhere and `railyardctl get --all-nodes`, with an
// updater and a replica in step, the replica killed (unknown, exit 4), the replica restarted cut
// from its updater (behind, holding the older copy), then following again (newest), a deletion,
// and a document that no node holds.
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

// The checksum computed here on its own, header-only.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/cluster/admin_client.h"
#include "core/cluster/doc_copies.h"
#include "tests/e2e/replication_support.h"
#include "tests/support/free_port.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

using namespace railyard;
using namespace railyard::e2e;

namespace {

uint64_t DocChecksum(const std::string& doc) { return XXH3_64bits(doc.data(), doc.size()); }

QString DescribeCopies(const std::vector<cluster::NodeCopy>& copies,
                       const cluster::CopyComparison& comparison) {
  QString out;
  for (size_t i = 0; i < copies.size(); ++i) {
    const cluster::NodeCopy& c = copies[i];
    out += QString("%1: %2, %3, position %4, applied %5, %6; ")
               .arg(QString::fromStdString(c.node))
               .arg(QString::fromUtf8(cluster::CopyVerdictName(comparison.verdicts[i]).data(),
                                      cluster::CopyVerdictName(comparison.verdicts[i]).size()))
               .arg(QString::fromStdString(c.status.ToString()))
               .arg(c.location.position())
               .arg(c.location.applied_position())
               .arg(QString::fromStdString(cluster::AnsweredBy(c.location)));
  }
  return out;
}

// The VERDICT column of railyardctl's table, row by row.
QStringList VerdictColumn(const QString& table) {
  QStringList verdicts;
  for (const QString& line : table.split('\n')) {
    const QStringList fields = line.split(' ', Qt::SkipEmptyParts);
    if (fields.size() >= 3 && (fields[0] == "updater" || fields[0] == "replica")) {
      verdicts << fields[2];
    }
  }
  return verdicts;
}

}  // namespace

class DocCopiesTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::unique_ptr<NodeProcess> updater_, replica_;
  QString cluster_file_;

  cluster::ClusterAccess Access() const {
    cluster::ClusterAccess access;
    access.nodes = {{"updater", updater_->admin()}, {"replica", replica_->admin()}};
    access.token = kViewerToken;
    return access;
  }

  // The copies of `id`, asked through the library, and their verdicts.
  std::pair<std::vector<cluster::NodeCopy>, cluster::CopyComparison> Copies(uint64_t id) const {
    std::vector<cluster::NodeCopy> copies =
        cluster::LocateEverywhere(cluster::CopyTargetsOf(Access()), id, std::chrono::seconds(2));
    cluster::CopyComparison comparison = cluster::CompareCopies(copies);
    return {std::move(copies), std::move(comparison)};
  }

  // The cluster file railyardctl reads: the nodes' admin addresses as they are now.
  bool WriteClusterFile() {
    QFile file(cluster_file_);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
    const QString text = QString(
                             "name: \"copies\"\n"
                             "node { name: \"updater\" admin: \"%1\" role: \"updater\" }\n"
                             "node { name: \"replica\" admin: \"%2\" role: \"replica\" }\n")
                             .arg(updater_->admin_address(), replica_->admin_address());
    return file.write(text.toUtf8()) == text.toUtf8().size();
  }

  int Get(uint64_t id, QString* out) {
    return RunCtl(BuiltProgram("railyardctl"),
                  {"get", QString::number(id), "--all-nodes", "--cluster", cluster_file_, "--token",
                   kViewerToken, "--timeout", "2s"},
                  out);
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QVERIFY(WriteTokenFiles(dir_.path()));
    cluster_file_ = dir_.path() + "/cluster.textproto";
    updater_ = StartNodeIn(dir_.path(), "updater", UpdaterArgs(dir_.path()));
    QVERIFY(updater_);
    replica_ = StartNodeIn(dir_.path(), "replica", ReplicaArgs(dir_.path(), *updater_));
    QVERIFY(replica_);
    QVERIFY(WriteClusterFile());
  }

  void copiesInStepThenBehindThenCaughtUp() {
    std::unique_ptr<rpc::Client> writer = ConnectTo(*updater_);
    QVERIFY(writer);
    const std::string first = "the first version of 42";
    uint64_t first_position = 0;
    QVERIFY(Put(*writer, 42, first, &first_position).ok());
    // Flushed on the updater: its copy is answered by an on-disk index and a Bloom page.
    cluster::AdminClient updater_admin(updater_->admin(), kOperatorToken);
    QVERIFY(updater_admin.Connect(std::chrono::seconds(10)).ok());
    admin::AdminResponse flushed;
    QVERIFY(updater_admin.Flush(&flushed).ok());
    QString lag = WaitCaughtUp(*updater_, {replica_.get()}, first_position);
    QVERIFY2(lag.isEmpty(), qPrintable(lag));

    {
      const auto [copies, comparison] = Copies(42);
      const QString seen = DescribeCopies(copies, comparison);
      QCOMPARE(comparison.newest_position, first_position);
      for (size_t i = 0; i < copies.size(); ++i) {
        QVERIFY2(comparison.verdicts[i] == cluster::CopyVerdict::kNewest, qPrintable(seen));
        QCOMPARE(copies[i].location.position(), first_position);
        QCOMPARE(copies[i].location.size_bytes(), uint64_t{first.size()});
        QCOMPARE(copies[i].location.checksum(), DocChecksum(first));
        QCOMPARE(copies[i].location.id(), uint64_t{42});
      }
      QCOMPARE(copies[0].location.role(), admin::DOCSTORE_UPDATER);
      QCOMPARE(copies[1].location.role(), admin::DOCSTORE_REPLICA);
      const admin::DocLocation& on_disk = copies[0].location;
      QCOMPARE(on_disk.source(), admin::DocLocation::SOURCE_INDEX);
      const admin::Telemetry t = TelemetryOf(*updater_);
      QVERIFY(t.storage().indexes_size() >= 1);
      bool listed = false;
      for (const admin::IndexInfo& index : t.storage().indexes()) {
        listed |= index.id() == on_disk.index() && on_disk.bloom_page() < index.bloom_pages();
      }
      QVERIFY2(listed, qPrintable(seen));
    }
    // Without --all-nodes: the bytes, read from the nodes that serve; an absent id is exit 1.
    QString bytes;
    QCOMPARE(RunCtl(BuiltProgram("railyardctl"),
                    {"get", "42", "--cluster", cluster_file_, "--token", kViewerToken,
                     "--min-position", QString::number(first_position)},
                    &bytes),
             0);
    QCOMPARE(bytes, QString::fromStdString(first));
    QCOMPARE(RunCtl(BuiltProgram("railyardctl"),
                    {"get", "4242", "--cluster", cluster_file_, "--token", kViewerToken}, &bytes),
             1);
    QVERIFY2(bytes.contains("document 4242 not found"), qPrintable(bytes));

    QString out;
    QCOMPARE(Get(42, &out), 0);
    QVERIFY2(out.contains("newest entry at queue position " + QString::number(first_position)),
             qPrintable(out));
    QVERIFY2(VerdictColumn(out) == QStringList({"newest", "newest"}), qPrintable(out));

    // The replica killed: unknown, and railyardctl says the node is unreachable (exit 4).
    replica_->Kill();
    const std::string second = "the second version of 42, longer than the first";
    uint64_t second_position = 0;
    QVERIFY(Put(*writer, 42, second, &second_position).ok());
    QVERIFY(second_position > first_position);
    {
      const auto [copies, comparison] = Copies(42);
      QCOMPARE(comparison.verdicts[1], cluster::CopyVerdict::kUnknown);
      QCOMPARE(comparison.verdicts[0], cluster::CopyVerdict::kNewest);
      QCOMPARE(copies[0].location.source(), admin::DocLocation::SOURCE_MEMTABLE);
    }
    QCOMPARE(Get(42, &out), 4);
    QVERIFY2(out.contains("unknown") && out.contains("UNAVAILABLE"), qPrintable(out));

    // Back, but cut from its updater (it follows a port where nothing listens): it holds the
    // first version and is behind, with the second's position not applied.
    replica_ = StartNodeIn(dir_.path(), "replica",
                           {"--role", "replica", "--follow",
                            QString("127.0.0.1:%1").arg(railyard::testing::FreePort()),
                            "--replication-token-file", dir_.path() + "/replication"});
    QVERIFY(replica_);
    QVERIFY(WriteClusterFile());
    {
      std::vector<cluster::NodeCopy> copies;
      cluster::CopyComparison comparison;
      // Locate waits for the store to open; the node answers FAILED_PRECONDITION until then.
      QVERIFY(WaitFor([&] {
        std::tie(copies, comparison) = Copies(42);
        return copies[1].status.ok();
      }));
      const QString seen = DescribeCopies(copies, comparison);
      QCOMPARE(comparison.newest_position, second_position);
      QVERIFY2(comparison.verdicts[0] == cluster::CopyVerdict::kNewest, qPrintable(seen));
      QVERIFY2(comparison.verdicts[1] == cluster::CopyVerdict::kBehind, qPrintable(seen));
      QCOMPARE(copies[1].location.position(), first_position);
      QCOMPARE(copies[1].location.checksum(), DocChecksum(first));
      QVERIFY(copies[1].location.applied_position() < second_position);
      QCOMPARE(copies[0].location.checksum(), DocChecksum(second));
    }
    QCOMPARE(Get(42, &out), 0);  // Behind is news, not a failure.
    QVERIFY2(VerdictColumn(out) == QStringList({"newest", "behind"}), qPrintable(out));

    // Following again: newest, the same entry as the updater's.
    replica_->Kill();
    replica_ = StartNodeIn(dir_.path(), "replica", ReplicaArgs(dir_.path(), *updater_));
    QVERIFY(replica_);
    QVERIFY(WriteClusterFile());
    lag = WaitCaughtUp(*updater_, {replica_.get()}, second_position);
    QVERIFY2(lag.isEmpty(), qPrintable(lag));
    QVERIFY(WaitFor([&] {
      const auto [copies, comparison] = Copies(42);
      return comparison.verdicts ==
                 std::vector{cluster::CopyVerdict::kNewest, cluster::CopyVerdict::kNewest} &&
             copies[1].location.checksum() == DocChecksum(second);
    }));

    // A deletion is an entry of its own; an id nobody wrote is absent everywhere.
    uint64_t deleted_at = 0;
    QVERIFY(Delete(*writer, 42, &deleted_at).ok());
    lag = WaitCaughtUp(*updater_, {replica_.get()}, deleted_at);
    QVERIFY2(lag.isEmpty(), qPrintable(lag));
    {
      const auto [copies, comparison] = Copies(42);
      QVERIFY(comparison.newest_deleted);
      QCOMPARE(comparison.verdicts[1], cluster::CopyVerdict::kNewest);
      QVERIFY(copies[1].location.deleted());
    }
    QCOMPARE(Get(424242, &out), 0);
    QVERIFY2(
        out.contains("no node holds it") && VerdictColumn(out) == QStringList({"absent", "absent"}),
        qPrintable(out));
  }

  void cleanupTestCase() {
    replica_.reset();  // SIGKILLs what still runs.
    updater_.reset();
  }
};

RAILYARD_QTEST_GUILESS_MAIN(DocCopiesTest)
#include "tst_doc_copies.moc"
