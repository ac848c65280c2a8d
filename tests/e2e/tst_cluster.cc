// SPDX-License-Identifier: Apache-2.0
// A 3-node cluster of real railyard-node processes on loopback, load from a Boxcar client, and
// railyardctl as operators run it: drain, SIGKILL and restart, compaction, tokens.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <thread>

#include "core/cluster/admin_client.h"
#include "core/load/closed_loop_load.h"
#include "core/trace/recording_reader.h"
#include "railyard/docservice.pb.h"
#include "tests/e2e/node_process.h"
#include "tests/rpc/rpc_test_support.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::e2e::NodeProcess;
using railyard::e2e::NodeProcessOptions;
using railyard::testing::BuiltProgram;

using namespace railyard;
using rpc::testing::WaitUntil;
using namespace std::chrono_literals;

namespace {

constexpr char kViewer[] = "viewer-secret";
constexpr char kOperator[] = "operator-secret";

// One snapshot of `node`'s telemetry; empty if it could not be had.
admin::Telemetry Telemetry(const NodeProcess& node) {
  admin::Telemetry t;
  if (!node.Telemetry(kViewer, &t)) t.Clear();
  return t;
}

int Ctl(const QStringList& args, QString* out = nullptr) {
  return railyard::e2e::RunCtl(BuiltProgram("railyardctl"), args, out);
}

uint64_t HandledPuts(const admin::Telemetry& t) {
  for (const admin::MethodStats& m : t.throughput().methods()) {
    if (m.method() == "doc.Put") return m.requests();
  }
  return 0;
}

// What `railyardctl record` last said on stderr (after each round: "N snapshots, M events"),
// with what it has written there so far in `*seen`.
struct RecorderProgress {
  uint64_t snapshots = 0, events = 0;
};
RecorderProgress ReadProgress(QProcess& recorder, QByteArray* seen) {
  *seen += recorder.readAllStandardError();
  RecorderProgress progress;
  static const QRegularExpression kCounts(R"((\d+) snapshots, (\d+) events)");
  for (QRegularExpressionMatchIterator it = kCounts.globalMatch(QString::fromUtf8(*seen));
       it.hasNext();) {
    const QRegularExpressionMatch m = it.next();
    progress.snapshots = m.captured(1).toULongLong();
    progress.events = m.captured(2).toULongLong();
  }
  return progress;
}

std::string PutPayload(uint64_t id) {
  doc::PutRequest put;
  put.set_id(id);
  put.set_doc("document " + std::to_string(id));
  return put.SerializeAsString();
}

}  // namespace

class ClusterTest : public QObject {
  Q_OBJECT

  std::unique_ptr<QTemporaryDir> dir_;  // Fresh for each test.
  std::vector<std::unique_ptr<NodeProcess>> nodes_;

  std::vector<rpc::Endpoint> Services() const {
    std::vector<rpc::Endpoint> out;
    for (const auto& n : nodes_) out.push_back(n->service());
    return out;
  }

 private Q_SLOTS:
  void init() {
    dir_ = std::make_unique<QTemporaryDir>();
    for (const auto& [file, token] :
         {std::pair{"viewer", kViewer}, std::pair{"operator", kOperator}}) {
      QFile out(dir_->filePath(file));
      QVERIFY(out.open(QIODevice::WriteOnly));
      out.write(token);
    }
    for (int i = 0; i < 3; ++i) {
      const QString name = QString("node%1").arg(i);
      nodes_.push_back(std::make_unique<NodeProcess>(
          NodeProcessOptions{.binary = BuiltProgram("railyard-node"),
                             .name = name,
                             .data_dir = dir_->filePath(name),
                             .token_dir = dir_->path(),
                             .log_path = dir_->filePath(name + ".log")}));
      QString error;
      QVERIFY2(nodes_.back()->Start(0, 0, &error), qPrintable(error));
    }
  }
  void cleanup() {
    nodes_.clear();
    dir_.reset();
  }

  // `railyardctl load` against the whole cluster, as a process; its JSON summary says what
  // happened to every call. The tests run it for longer than they need and end it with SIGTERM
  // (which it answers with its summary) once they have seen what they wait for, so a slow machine
  // cannot run out of load before that.
  QProcess* StartLoad(double seconds) {
    auto* load = new QProcess(this);
    QStringList args{"load",
                     "--duration-s",
                     QString::number(seconds),
                     "--concurrency",
                     "6",
                     "--read-fraction",
                     "0.5",
                     "--keys",
                     "5000",
                     "--json",
                     "--unreplicated"};  // Three independent nodes: each takes writes.
    for (const auto& n : nodes_)
      args << "--server" << QString::fromStdString(n->service().ToString());
    load->start(BuiltProgram("railyardctl"), args);
    return load;
  }

  static QJsonObject FinishLoad(QProcess* load, int* exit_code) {
    load->terminate();  // SIGTERM: the run ends early, with its summary (a no-op if it has ended).
    if (!load->waitForFinished(60000)) load->kill();
    *exit_code = load->exitCode();
    const QString out = QString::fromUtf8(load->readAllStandardOutput());
    const qsizetype at = out.indexOf("{\"load\":\"summary\"");
    return QJsonDocument::fromJson(out.mid(at).section('\n', 0, 0).toUtf8()).object();
  }

  void drainLosesNoRequestAndEmptiesSlots() {
    QProcess* load = StartLoad(60);
    QVERIFY(load->waitForStarted(10000));
    QVERIFY(WaitUntil([&] { return HandledPuts(Telemetry(*nodes_[1])) > 50; }, 30s));
    QString out;
    QCOMPARE(Ctl({"drain", "--node", QString::fromStdString(nodes_[1]->admin().ToString()),
                  "--token", kOperator},
                 &out),
             0);
    // Its slot table empties (the acquirers' occasional probes are refused and leave at once).
    QVERIFY(WaitUntil([&] { return Telemetry(*nodes_[1]).slots_size() == 0; }, 30s));
    QCOMPARE(Telemetry(*nodes_[1]).state(), admin::NODE_LAME_DUCK);
    const uint64_t puts_at_drain = HandledPuts(Telemetry(*nodes_[1]));
    QTest::qWait(400);
    QCOMPARE(HandledPuts(Telemetry(*nodes_[1])), puts_at_drain);  // No new request reached it.
    int exit_code = -1;
    const QJsonObject summary = FinishLoad(load, &exit_code);
    QCOMPARE(exit_code, 0);
    QVERIFY(summary["requests"].toDouble() > 100);
    QCOMPARE(summary["errors"].toDouble(), 0.0);
    QCOMPARE(summary["rejections"].toDouble(), 0.0);
    QCOMPARE(Ctl({"undrain", "-n", QString::fromStdString(nodes_[1]->admin().ToString()), "--token",
                  kOperator}),
             0);
    QCOMPARE(Telemetry(*nodes_[1]).state(), admin::NODE_SERVING);
  }

  void sigkillLosesNoRequestAndRestartBringsTrafficBack() {
    QProcess* load = StartLoad(60);
    QVERIFY(load->waitForStarted(10000));
    QVERIFY(WaitUntil([&] { return HandledPuts(Telemetry(*nodes_[2])) > 50; }, 30s));
    nodes_[2]->Kill();  // SIGKILL
    QTest::qWait(500);  // Down for a while, under load.
    // Same ports, same data: the load's clients find it again on their own.
    QString error;
    QVERIFY2(nodes_[2]->Restart(&error), qPrintable(error));
    QVERIFY(WaitUntil([&] { return HandledPuts(Telemetry(*nodes_[2])) > 20; }, 30s));
    int exit_code = -1;
    const QJsonObject summary = FinishLoad(load, &exit_code);
    QCOMPARE(exit_code, 0);
    QCOMPARE(summary["errors"].toDouble(), 0.0);
    QCOMPARE(summary["rejections"].toDouble(), 0.0);
    qInfo("SIGKILL of one of 3 nodes under railyardctl load: %.0f calls, %.0f retried, 0 failed",
          summary["requests"].toDouble(), summary["retries"].toDouble());
  }

  void compactShowsANewCompactionSet() {
    rpc::Client client(rpc::testing::FastClientOptions({nodes_[0]->service()}, 4));
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(4, std::chrono::seconds(20)));
    for (uint64_t id = 0; id < 700; ++id) {
      QVERIFY(client.Call("doc.Put", PutPayload(id)).status.ok());  // 3 flushes of 200
    }
    const QString admin_at = QString::fromStdString(nodes_[0]->admin().ToString());
    QCOMPARE(Ctl({"flush", "-n", admin_at, "--token", kOperator}), 0);
    const int before = Telemetry(*nodes_[0]).storage().compactions_size();
    QVERIFY(Telemetry(*nodes_[0]).storage().indexes_size() >= 2);
    QString out;
    QCOMPARE(Ctl({"compact", "-n", admin_at, "--token", kOperator}, &out), 0);
    const admin::Telemetry after = Telemetry(*nodes_[0]);
    QCOMPARE(after.storage().compactions_size(), before + 1);
    QVERIFY(after.storage().compactions().rbegin()->manual());
    QCOMPARE(after.storage().indexes_size(), 1);
    doc::GetRequest get;
    get.set_id(123);
    const rpc::CallResult read = client.Call("doc.Get", get.SerializeAsString());
    QVERIFY(read.status.ok());
    doc::GetResponse response;
    QVERIFY(response.ParseFromString(read.payload));
    QCOMPARE(response.doc(), std::string("document 123"));
  }

  void tokensAreEnforced() {
    const QString admin_at = QString::fromStdString(nodes_[0]->admin().ToString());
    QString out;
    QCOMPARE(Ctl({"drain", "-n", admin_at, "--token", kViewer}, &out), 3);
    QVERIFY(out.contains("needs an operator token"));
    QCOMPARE(Ctl({"status", "-n", admin_at}, &out), 3);  // No token.
    QVERIFY(out.contains("requires a token"));
    QCOMPARE(Ctl({"status", "-n", admin_at, "--token", "guess"}, &out), 3);
    QVERIFY(out.contains("not valid"));
    QCOMPARE(Telemetry(*nodes_[0]).state(), admin::NODE_SERVING);  // Nothing was drained.
    QCOMPARE(Ctl({"status", "-n", admin_at, "--token", kViewer}, &out), 0);
    QVERIFY(out.contains("serving"));
  }

  // watch and record with a wrong token stop asking that node (they would lock the host out, so a
  // correct railyardctl from here would be refused too) and say so; the next correct call works.
  void watchAndRecordNeverRetryARefusedToken() {
    const QString admin_at = QString::fromStdString(nodes_[0]->admin().ToString());
    QString out;
    // Twelve rounds: past the node's five free failures, had each round asked again.
    QCOMPARE(
        Ctl({"watch", "-n", admin_at, "--token", "guess", "--count", "12", "--interval-ms", "100"},
            &out),
        3);
    QVERIFY2(out.contains("not asked again"), qPrintable(out));
    const QString recording = dir_->filePath("refused.rec");
    QCOMPARE(Ctl({"record", "-n", admin_at, "--token", "guess", "--out", recording, "--interval-ms",
                  "100", "--duration-s", "2"},
                 &out),
             3);
    QVERIFY2(out.contains("not asked again"), qPrintable(out));
    QCOMPARE(Ctl({"status", "-n", admin_at, "--token", kViewer}, &out), 0);
    QVERIFY2(out.contains("serving"), qPrintable(out));
  }

  void railyardctlLoadDrivesTheClusterAndReports() {
    QStringList args{"load", "--duration-s",   "1.5",           "--read-fraction",
                     "0.5",  "--distribution", "zipfian",       "--keys",
                     "1000", "--json",         "--unreplicated"};
    for (const auto& n : nodes_)
      args << "--server" << QString::fromStdString(n->service().ToString());
    QString out;
    QCOMPARE(Ctl(args, &out), 0);
    const qsizetype at = out.indexOf("{\"load\":\"summary\"");
    QVERIFY2(at >= 0, qPrintable(out));
    const QJsonObject summary =
        QJsonDocument::fromJson(out.mid(at).section('\n', 0, 0).toUtf8()).object();
    QVERIFY(summary["requests"].toDouble() > 100);
    QCOMPARE(summary["errors"].toDouble(), 0.0);
    QCOMPARE(summary["requests"].toDouble(), summary["ok"].toDouble() +
                                                 summary["not_found"].toDouble() +
                                                 summary["rejections"].toDouble());
    // Every node took part.
    for (const auto& n : nodes_) QVERIFY(HandledPuts(Telemetry(*n)) > 0);
    QCOMPARE(Ctl({"load", "--duration-s", "1"}, &out), 2);  // No servers named.
  }

  void loadRecordsItsWorkloadAndReplaysIt() {
    const QString workload = dir_->filePath("workload.rec");
    const QString service = QString::fromStdString(nodes_[0]->service().ToString());
    QString out;
    QCOMPARE(Ctl({"load", "-s", service, "--rate", "400", "--duration-s", "1", "--read-fraction",
                  "0.5", "--record-workload", workload, "--json"},
                 &out),
             0);
    const auto summary_of = [](const QString& text) {
      const qsizetype at = text.indexOf("{\"load\":\"summary\"");
      return QJsonDocument::fromJson(text.mid(at).section('\n', 0, 0).toUtf8()).object();
    };
    const double sent = summary_of(out)["requests"].toDouble();
    QVERIFY(sent > 100);
    uint64_t recorded = 0;
    std::unique_ptr<trace::RecordingReader> reader;
    QVERIFY(trace::RecordingReader::Open(workload.toStdString(), &reader).ok());
    for (auto cursor = reader->NewWorkloadCursor(0); cursor->Valid(); cursor->Next()) {
      QVERIFY(cursor->op().status.ok());
      ++recorded;
    }
    QCOMPARE(static_cast<double>(recorded), sent);  // Every operation sent was recorded.
    const uint64_t puts_before = HandledPuts(Telemetry(*nodes_[0]));
    QCOMPARE(
        Ctl({"load", "-s", service, "--replay", workload, "--replay-speed", "4", "--json"}, &out),
        0);
    QCOMPARE(summary_of(out)["requests"].toDouble(), sent);  // The same operations, again.
    QCOMPARE(summary_of(out)["errors"].toDouble(), 0.0);
    QVERIFY(HandledPuts(Telemetry(*nodes_[0])) > puts_before);
  }

  void recordCapturesTelemetryAndCommands() {
    // A cluster file naming the three nodes, as operators keep them.
    QFile cluster(dir_->filePath("cluster.textproto"));
    QVERIFY(cluster.open(QIODevice::WriteOnly));
    for (size_t i = 0; i < nodes_.size(); ++i) {
      cluster.write(QString("node { name: \"node%1\" admin: \"%2\" }\n")
                        .arg(i)
                        .arg(QString::fromStdString(nodes_[i]->admin().ToString()))
                        .toUtf8());
    }
    cluster.close();
    const QString recording = dir_->filePath("run.rec");
    QProcess recorder;
    recorder.start(BuiltProgram("railyardctl"),
                   {"record", "--cluster", cluster.fileName(), "--out", recording, "--interval-ms",
                    "100", "--token", kViewer, "--progress-every-s", "0.1"});
    QVERIFY(recorder.waitForStarted(10000));
    // Some rounds before the commands and some after, counted from the recorder's own progress
    // rather than assumed from the time that passed (a loaded machine polls fewer rounds in it).
    QByteArray progress;
    QTest::qWait(400);
    QTRY_VERIFY_WITH_TIMEOUT(ReadProgress(recorder, &progress).snapshots >= 15, 30000);
    const QString admin1 = QString::fromStdString(nodes_[1]->admin().ToString());
    QCOMPARE(Ctl({"drain", "-n", admin1, "--token", kOperator}), 0);
    QCOMPARE(Ctl({"compact", "-n", admin1, "--token", kOperator}), 0);
    // Two whole rounds after the commands (one of them surely began after both), with both
    // commands' events.
    const uint64_t at_commands = ReadProgress(recorder, &progress).snapshots;
    QTest::qWait(400);
    QTRY_VERIFY_WITH_TIMEOUT(ReadProgress(recorder, &progress).snapshots >= at_commands + 6 &&
                                 ReadProgress(recorder, &progress).events >= 2,
                             30000);
    recorder.terminate();  // SIGTERM: a clean close.
    QVERIFY(recorder.waitForFinished(10000));
    QCOMPARE(recorder.exitCode(), 0);

    std::unique_ptr<trace::RecordingReader> reader;
    QVERIFY(trace::RecordingReader::Open(recording.toStdString(), &reader).ok());
    std::vector<std::string> names;
    QVERIFY(reader->Nodes(&names).ok());
    QCOMPARE(names, (std::vector<std::string>{"node0", "node1", "node2"}));
    std::map<std::string, uint64_t> last_sequence;
    int64_t last_time = 0;
    int snapshots = 0;
    for (auto cursor = reader->NewSnapshotCursor(0); cursor->Valid(); cursor->Next()) {
      const trace::Snapshot& snap = cursor->snapshot();
      QVERIFY(snap.status.ok());
      QVERIFY(snap.unix_ms >= last_time);                 // In time order,
      QVERIFY(snap.sequence > last_sequence[snap.node]);  // and in each node's own order.
      last_time = snap.unix_ms;
      last_sequence[snap.node] = snap.sequence;
      ++snapshots;
    }
    QVERIFY(snapshots >= 15);
    std::vector<trace::Event> events;
    QVERIFY(reader->Events(&events).ok());
    QCOMPARE(events.size(), size_t{2});
    QCOMPARE(events[0].kind, std::string("drain"));
    QCOMPARE(events[1].kind, std::string("compact"));
    QCOMPARE(events[0].node, std::string("node1"));
    // The node shows lame duck after the drain, in the recording as it was live.
    std::vector<trace::Snapshot> at_end;
    QVERIFY(reader->Seek(last_time, &at_end).ok());
    for (const trace::Snapshot& snap : at_end) {
      QCOMPARE(snap.telemetry.state(),
               snap.node == "node1" ? admin::NODE_LAME_DUCK : admin::NODE_SERVING);
    }
    QString out;
    QCOMPARE(Ctl({"inspect", recording}, &out), 0);
    QVERIFY(out.contains("nodes (3): node0 node1 node2"));
    QVERIFY(out.contains("drain"));
    // The same for scripts: one JSON object.
    QCOMPARE(Ctl({"inspect", recording, "--json"}, &out), 0);
    const QJsonObject inspected = QJsonDocument::fromJson(out.trimmed().toUtf8()).object();
    QCOMPARE(inspected["nodes"].toArray().size(), 3);
    QCOMPARE(inspected["nodes"].toArray()[2].toString(), QString("node2"));
    QCOMPARE(inspected["snapshots"].toDouble(), double(snapshots));
    QCOMPARE(inspected["last_unix_ms"].toDouble(), double(last_time));
    const QJsonArray events_json = inspected["events"].toArray();
    QCOMPARE(events_json.size(), 2);
    QCOMPARE(events_json[0].toObject()["kind"].toString(), QString("drain"));
    QCOMPARE(events_json[0].toObject()["node"].toString(), QString("node1"));
  }

  void statusAndWatchPrintJsonLinesForScripts() {
    QStringList target{"--token", kViewer};
    for (const auto& n : nodes_) target << "-n" << QString::fromStdString(n->admin().ToString());
    // Each line one node's JSON object (stderr's messages are not JSON objects).
    auto objects = [](const QString& out) {
      std::vector<QJsonObject> lines;
      for (const QString& line : out.split('\n')) {
        if (line.startsWith('{')) lines.push_back(QJsonDocument::fromJson(line.toUtf8()).object());
      }
      return lines;
    };
    QString out;
    QCOMPARE(Ctl(QStringList{"status", "--json"} + target, &out), 0);
    std::vector<QJsonObject> lines = objects(out);
    QCOMPARE(lines.size(), nodes_.size());
    for (size_t i = 0; i < lines.size(); ++i) {
      QCOMPARE(lines[i]["node"].toString(), QString::fromStdString(nodes_[i]->admin().ToString()));
      const QJsonObject telemetry = lines[i]["telemetry"].toObject();
      QCOMPARE(telemetry["state"].toString(), QString("NODE_SERVING"));  // Enums by name.
      QVERIFY(telemetry.contains("throughput"));
    }

    QCOMPARE(
        Ctl(QStringList{"watch", "--json", "--count", "2", "--interval-ms", "100"} + target, &out),
        0);
    lines = objects(out);
    QCOMPARE(lines.size(), 2 * nodes_.size());  // A line per node and round; no table.
    QCOMPARE(lines.back()["round"].toDouble(), 1.0);
    QVERIFY(lines.back()["unix_ms"].toDouble() > 1.6e12);
    QVERIFY(!out.contains("\033[H"));

    // A node that is gone has its own line, with the reason and the exit code it earned.
    nodes_[2]->Kill();
    QCOMPARE(Ctl(QStringList{"status", "--json"} + target, &out), 4);
    lines = objects(out);
    QCOMPARE(lines.size(), nodes_.size());
    QVERIFY(lines[0].contains("telemetry"));
    QVERIFY2(!lines[2]["error"].toString().isEmpty(), qPrintable(out));
    QCOMPARE(lines[2]["exit_code"].toDouble(), 4.0);
  }

  void sigtermDrainsFlushesAndExitsCleanly() {
    rpc::Client client(rpc::testing::FastClientOptions({nodes_[0]->service()}, 2));
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(2, std::chrono::seconds(20)));
    QVERIFY(client.Call("doc.Put", PutPayload(5)).status.ok());
    client.Stop();
    int exit_code = -1;
    QVERIFY(nodes_[0]->Terminate(10s, &exit_code));
    QCOMPARE(exit_code, 0);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ClusterTest)
#include "tst_cluster.moc"
