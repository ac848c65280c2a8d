// SPDX-License-Identifier: Apache-2.0
// railyardctl record --since against a real railyard-node: the past the node's flight recorder
// kept becomes a recording the console replays; a bad --since is a usage error; a node started
// with --flight-recorder-mib 0 keeps none and says so.
#include <signal.h>

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "core/cluster/admin_client.h"
#include "core/rpc/endpoint.h"
#include "core/trace/recording_reader.h"
#include "tests/support/admin_tokens.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"
#include "tests/support/wait_until.h"

using railyard::testing::BuiltProgram;
using railyard::testing::kViewerToken;

namespace {

// A railyard-node in `dir`, killed when it goes; its admin address once it said it.
class Node {
 public:
  Node(const QString& dir, const QStringList& extra) {
    QFile tokens(dir + "/viewer.tokens");
    if (!tokens.open(QIODevice::WriteOnly)) return;
    tokens.write(QByteArray(kViewerToken) + "\n");
    tokens.close();
    process_.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    process_.start(BuiltProgram("railyard-node"),
                   QStringList{"--name", "past", "--data-dir", dir + "/data", "--listen",
                               "127.0.0.1:0", "--viewer-token-file", tokens.fileName()} +
                       extra);
    if (!process_.waitForStarted(5000) || !process_.waitForReadyRead(30000)) return;
    const QRegularExpressionMatch m = QRegularExpression(R"(ADMIN (127\.0\.0\.1:\d+))")
                                          .match(QString::fromUtf8(process_.readLine()));
    if (m.hasMatch()) admin_ = m.captured(1);
  }
  ~Node() {
    if (process_.state() == QProcess::NotRunning) return;
    ::kill(pid_t(process_.processId()), SIGKILL);
    process_.waitForFinished(5000);
  }
  const QString& admin() const { return admin_; }

 private:
  QProcess process_;
  QString admin_;
};

int Ctl(const QStringList& args, QString* out) {
  QProcess ctl;
  ctl.start(BuiltProgram("railyardctl"), args);
  if (!ctl.waitForFinished(60000)) return -1;
  *out = QString::fromUtf8(ctl.readAllStandardOutput() + ctl.readAllStandardError());
  return ctl.exitCode();
}

}  // namespace

class RecordSinceTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void thePastBecomesARecording() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Node node(dir.path(), {});
    QVERIFY(!node.admin().isEmpty());
    // The node keeps a snapshot a second: wait until it holds three.
    railyard::cluster::AdminClient viewer(*railyard::rpc::ParseEndpoint(node.admin().toStdString()),
                                          kViewerToken, "tst");
    QVERIFY(viewer.Connect(std::chrono::seconds(10)).ok());
    railyard::admin::History history;
    QVERIFY(railyard::testing::WaitUntil(
        [&] { return viewer.History(0, 0, 0, &history).ok() && history.snapshots_size() >= 3; },
        std::chrono::seconds(30), std::chrono::milliseconds(100)));
    const QString out = dir.filePath("past.rec");
    QString said;
    QCOMPARE(
        Ctl({"record", "--since", "10m", "-n", node.admin(), "--token", kViewerToken, "-o", out},
            &said),
        0);
    QVERIFY2(said.contains("of the past 10m"), qPrintable(said));
    std::unique_ptr<railyard::trace::RecordingReader> reader;
    QVERIFY(railyard::trace::RecordingReader::Open(out.toStdString(), &reader).ok());
    uint64_t count = 0;
    QVERIFY(reader->SnapshotCount(&count).ok());
    QVERIFY2(count >= 3, qPrintable(QString::number(count)));
    std::vector<std::string> nodes;
    QVERIFY(reader->Nodes(&nodes).ok());
    // Named as live recording names it: by the address given (-n), the node's own name inside.
    QCOMPARE(nodes, std::vector<std::string>{node.admin().toStdString()});
    auto cursor = reader->NewSnapshotCursor(0);
    QVERIFY(cursor->Valid());
    QCOMPARE(cursor->snapshot().telemetry.node(), std::string("past"));

    QCOMPARE(Ctl({"record", "--since", "soon", "-n", node.admin(), "-o", out}, &said), 2);
    QVERIFY2(said.contains("90s, 15m, 1h or 2d"), qPrintable(said));
  }

  void aNodeWithoutARecorderSaysSo() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Node node(dir.path(), {"--flight-recorder-mib", "0"});
    QVERIFY(!node.admin().isEmpty());
    QString said;
    QVERIFY(Ctl({"record", "--since", "1h", "-n", node.admin(), "--token", kViewerToken, "-o",
                 dir.filePath("none.rec")},
                &said) != 0);
    QVERIFY2(said.contains("keeps no flight recorder"), qPrintable(said));
    QVERIFY(!QFile::exists(dir.path() + "/data/flight"));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(RecordSinceTest)
#include "tst_record_since.moc"
