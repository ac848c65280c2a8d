// SPDX-License-Identifier: Apache-2.0
// A cluster's past from a real Prometheus (Debian's binary) scraping real railyard-node processes,
// an updater and its replica, every second: written to, the replica SIGKILLed and restarted. The
// history read back (core/cluster/prometheus_history.h) carries what the nodes' own telemetry
// says, the outage as a gap and the restart; railyardctl record --prometheus and the console's
// --prometheus and its File > Open Prometheus range make a recording of it; wrong addresses and
// queries get clear errors.
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "core/cluster/admin_client.h"
#include "core/cluster/prometheus_history.h"
#include "core/cluster/prometheus_recording.h"
#include "core/cluster/time_span.h"
#include "core/trace/recording_reader.h"
#include "tests/e2e/replication_support.h"
#include "tests/e2e/stopped.h"
#include "tests/support/http_get.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_depth.h"
#include "tests/support/test_paths.h"
#include "ui/shell/main_window.h"
#include "ui/sources/replay_source.h"
#include "ui/views/throughput_view.h"

namespace {

namespace e2e = railyard::e2e;
namespace cluster = railyard::cluster;
namespace admin = railyard::admin;

const admin::MethodStats* HistoryMethod(const admin::Telemetry& t, const std::string& method) {
  for (const admin::MethodStats& m : t.throughput().methods()) {
    if (m.method() == method) return &m;
  }
  return nullptr;
}

const cluster::PrometheusNodePast* PastOf(const std::vector<cluster::PrometheusNodePast>& pasts,
                                          const std::string& node) {
  for (const auto& p : pasts) {
    if (p.node == node) return &p;
  }
  return nullptr;
}

}  // namespace

class PrometheusHistoryTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::unique_ptr<e2e::NodeProcess> updater_, replica_;
  QMap<QString, uint16_t> metrics_port_;
  railyard::testing::PrometheusProcess prometheus_;
  int64_t started_ms_ = 0, killed_ms_ = 0, restarted_ms_ = 0;
  int64_t drained_ms_ = 0, undrained_ms_ = 0, stopped_ms_ = 0, resumed_ms_ = 0;
  uint64_t puts_ = 0;

  std::unique_ptr<e2e::NodeProcess> StartNode(const QString& name, QStringList args) {
    metrics_port_[name] = railyard::testing::FreePort();
    args << "--metrics-listen" << QString("127.0.0.1:%1").arg(metrics_port_[name]);
    return e2e::StartNodeIn(dir_.path(), name, args);
  }
  QString Instance(const QString& name) const {
    return QString("127.0.0.1:%1").arg(metrics_port_.value(name));
  }
  // Waits until Prometheus's latest `up` of `name` is `value`.
  bool WaitUp(const QString& name, double value) {
    return e2e::WaitFor(
        [&] { return prometheus_.Value("up{instance=\"" + Instance(name) + "\"}") == value; });
  }
  cluster::PrometheusServer Server() const {
    cluster::PrometheusServer server;
    server.url = prometheus_.url().toStdString();
    server.timeout = std::chrono::seconds(20);
    return server;
  }
  // The gap of `past` that begins within a second of [from_ms, to_ms]; null if none.
  static const cluster::PrometheusNodePast::Gap* GapIn(const cluster::PrometheusNodePast& past,
                                                       int64_t from_ms, int64_t to_ms) {
    for (const cluster::PrometheusNodePast::Gap& g : past.gaps) {
      if (g.unix_ms >= from_ms - 1000 && g.unix_ms <= to_ms + 1000) return &g;
    }
    return nullptr;
  }
  static QString Gaps(const cluster::PrometheusNodePast& past) {
    QStringList gaps;
    for (const cluster::PrometheusNodePast::Gap& g : past.gaps) {
      gaps << QString("%1 (%2)").arg(g.unix_ms).arg(QString::fromStdString(g.reason));
    }
    return QString("gaps at %1").arg(gaps.join(", "));
  }
  cluster::PrometheusHistoryOptions Range() const {
    cluster::PrometheusHistoryOptions range;
    range.from_ms = started_ms_ - 5000;
    range.to_ms = cluster::UnixMsNow();
    range.step_ms = 1000;
    range.match = "job=\"railyard\"";
    return range;
  }

 private Q_SLOTS:
  // Writes, a kill and a restart of the replica, its drain and undrain, and a stop (SIGSTOP) of the
  // updater, each seen by Prometheus before the next.
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QVERIFY(e2e::WriteTokenFiles(dir_.path()));
    started_ms_ = cluster::UnixMsNow();
    updater_ = StartNode("updater", e2e::UpdaterArgs(dir_.path()));
    QVERIFY(updater_);
    replica_ = StartNode("replica", e2e::ReplicaArgs(dir_.path(), *updater_));
    QVERIFY(replica_);
    QString error;
    railyard::testing::PrometheusConfig config;
    config.targets = {Instance("updater"), Instance("replica")};
    QVERIFY2(prometheus_.Start(dir_.path(), config, &error), qPrintable(error));
    QVERIFY2(WaitUp("updater", 1) && WaitUp("replica", 1), "Prometheus did not scrape both");

    std::unique_ptr<railyard::rpc::Client> client = e2e::ConnectTo(*updater_);
    QVERIFY(client);
    uint64_t position = 0;
    const QString put_count =
        "sum(railyard_requests_total{method=\"doc.Put\",instance=\"" + Instance("updater") + "\"})";
    // Two batches, each scraped before the next: a counter's first sample is where its series
    // begins, so a rate needs an increase that Prometheus saw happen.
    for (const uint64_t batch_end : {100u, 300u}) {
      for (; puts_ < batch_end; ++puts_) {
        QVERIFY(e2e::Put(*client, puts_, "doc-" + std::to_string(puts_), &position).ok());
      }
      QVERIFY2(e2e::WaitFor([&] { return prometheus_.Value(put_count) == double(puts_); }),
               "Prometheus did not scrape the updater after the writes");
    }
    QVERIFY(e2e::WaitCaughtUp(*updater_, {replica_.get()}, position).isEmpty());

    killed_ms_ = cluster::UnixMsNow();
    replica_->Kill();
    QVERIFY2(WaitUp("replica", 0), "Prometheus did not see the replica down");
    // Two failed scrapes at least, so the gap spans steps of one second whatever their phase.
    QVERIFY(e2e::WaitFor([&] {
      return prometheus_.Value("count_over_time((up{instance=\"" + Instance("replica") +
                               "\"} == 0)[1m:1s])") >= 3;
    }));
    QVERIFY2(replica_->Restart(&error), qPrintable(error));
    restarted_ms_ = cluster::UnixMsNow();
    QVERIFY2(WaitUp("replica", 1), "Prometheus did not see the replica back");
    // Back and following: its lag known (exported) again in three scrapes since the restart, so
    // that a step of the range falls after the first of them.
    QVERIFY(e2e::WaitFor([&] {
      const int64_t since_s = (cluster::UnixMsNow() - restarted_ms_) / 1000;
      return since_s > 0 &&
             prometheus_.Value(QString("count_over_time(railyard_replication_lag_seconds{"
                                       "instance=\"%1\"}[%2s])")
                                   .arg(Instance("replica"))
                                   .arg(since_s)) >= 3;
    }));

    // The replica drained, then undrained, each state scraped before the next.
    cluster::AdminClient op(replica_->admin(), e2e::kOperatorToken, "tst");
    QVERIFY(op.Connect(std::chrono::seconds(5)).ok());
    admin::AdminResponse response;
    const QString lame =
        "railyard_node_state{state=\"lame_duck\",instance=\"" + Instance("replica") + "\"}";
    drained_ms_ = cluster::UnixMsNow();
    QVERIFY(op.Drain(&response).ok());
    QVERIFY2(e2e::WaitFor([&] { return prometheus_.Value(lame) == 1; }),
             "Prometheus did not see the replica drained");
    QVERIFY(e2e::WaitFor(
        [&] { return prometheus_.Value("count_over_time((" + lame + " == 1)[1m:1s])") >= 2; }));
    undrained_ms_ = cluster::UnixMsNow();
    QVERIFY(op.Undrain(&response).ok());
    QVERIFY2(e2e::WaitFor([&] { return prometheus_.Value(lame) == 0; }),
             "Prometheus did not see the replica undrained");

    // The updater stopped (SIGSTOP): its scrapes time out, as a dead one's fail; then it goes on
    // as the same process.
    {
      Stopped stopped(updater_->pid());
      QVERIFY(stopped.ok());
      stopped_ms_ = cluster::UnixMsNow();
      QVERIFY2(WaitUp("updater", 0), "Prometheus did not see the stopped updater down");
      QVERIFY(e2e::WaitFor([&] {
        return prometheus_.Value("count_over_time((up{instance=\"" + Instance("updater") +
                                 "\"} == 0)[1m:1s])") >= 3;
      }));
      stopped.Resume();
      resumed_ms_ = cluster::UnixMsNow();
    }
    QVERIFY2(WaitUp("updater", 1), "Prometheus did not see the updater back");
    // Three good scrapes since, so that steps of the range fall after it.
    QVERIFY(e2e::WaitFor([&] {
      const int64_t since_s = (cluster::UnixMsNow() - resumed_ms_) / 1000;
      return since_s > 0 && prometheus_.Value(QString("count_over_time((up{instance=\"%1\"} == "
                                                      "1)[%2s:1s])")
                                                  .arg(Instance("updater"))
                                                  .arg(since_s)) >= 3;
    }));
  }

  // What the nodes said of themselves is what the history says, per node and step.
  void theHistoryCarriesWhatTheNodesSaid() {
    std::vector<cluster::PrometheusNodePast> pasts;
    const railyard::base::Status s = cluster::FetchPrometheusHistory(Server(), Range(), &pasts);
    QVERIFY2(s.ok(), s.ToString().c_str());
    QCOMPARE(pasts.size(), size_t{2});
    const cluster::PrometheusNodePast* updater = PastOf(pasts, "updater");
    const cluster::PrometheusNodePast* replica = PastOf(pasts, "replica");
    QVERIFY(updater && replica);
    QCOMPARE(QString::fromStdString(updater->instance), Instance("updater"));

    const admin::Telemetry own = e2e::TelemetryOf(*updater_);
    const admin::Telemetry& last = updater->snapshots.back();
    QCOMPARE(last.node(), std::string("updater"));
    QCOMPARE(last.role(), own.role());
    QCOMPARE(last.state(), admin::NODE_SERVING);
    // process_start_time_seconds: the process's start, a little before its first snapshot.
    QVERIFY(std::abs(last.started_unix_ms() - own.started_unix_ms()) < 5000);
    QCOMPARE(last.replication().role(), admin::DOCSTORE_UPDATER);
    QCOMPARE(last.storage().writes(), own.storage().writes());
    const admin::MethodStats* put = HistoryMethod(last, "doc.Put");
    QVERIFY(put);
    QCOMPARE(put->requests(), puts_);
    QCOMPARE(put->errors(), uint64_t{0});
    // While the writes went on: a rate and a latency (histogram_quantile over /metrics' buckets).
    bool busy = false;
    for (const admin::Telemetry& t : updater->snapshots) {
      const admin::MethodStats* m = HistoryMethod(t, "doc.Put");
      busy |=
          m && m->requests_per_s() > 0 && m->p99_us() > 0 && t.throughput().requests_per_s() > 0;
      QVERIFY(t.has_downsampled());
      QCOMPARE(t.downsampled().bucket_ms(), 1000u);
    }
    QVERIFY(busy);
    // Snapshots one step apart, oldest first.
    for (size_t i = 1; i < updater->snapshots.size(); ++i) {
      QVERIFY(updater->snapshots[i].unix_ms() > updater->snapshots[i - 1].unix_ms());
    }

    // The replica: its role and lag as it exported them, and the kill as a gap between its last
    // scrape before and its first after, then a new process (a restart).
    const admin::Telemetry& replica_last = replica->snapshots.back();
    QCOMPARE(replica_last.replication().role(), admin::DOCSTORE_REPLICA);
    QVERIFY(replica_last.replication().lag_known());
    QCOMPARE(replica_last.replication().state(), e2e::ReplicationOf(*replica_).state());
    QCOMPARE(replica_last.replication().applied_docs(),
             e2e::ReplicationOf(*replica_).applied_docs());
    bool applying = false;
    for (const admin::Telemetry& t : replica->snapshots) {
      applying |= t.replication().apply_docs_per_s() > 0;
    }
    QVERIFY(applying);
    // Exactly one gap per outage. Under a sanitizer on a loaded machine a node may miss
    // Prometheus's 1 s scrape timeout once, which is a true gap of its own (up was 0): there, only
    // the outage's gap is required.
    const cluster::PrometheusNodePast::Gap* killed = GapIn(*replica, killed_ms_, restarted_ms_);
    QVERIFY2(killed, qPrintable(QString("no gap between the kill at %1 and the restart at %2: %3")
                                    .arg(killed_ms_)
                                    .arg(restarted_ms_)
                                    .arg(Gaps(*replica))));
    qInfo("replica: killed at %lld, restarted at %lld; %s", static_cast<long long>(killed_ms_),
          static_cast<long long>(restarted_ms_), qPrintable(Gaps(*replica)));
    RAILYARD_VERIFY_FIGURE(replica->gaps.size() == 1, qPrintable(Gaps(*replica)));
    const cluster::PrometheusNodePast::Gap& gap = *killed;
    QVERIFY2(gap.reason.find("up = 0") != std::string::npos, gap.reason.c_str());
    int64_t before = 0, after = 0;
    for (const admin::Telemetry& t : replica->snapshots) {
      (t.unix_ms() < gap.unix_ms ? before : after) = t.started_unix_ms();
    }
    QVERIFY(before > 0 && after > before);

    // The drain: lame duck in the snapshots between the drain and the undrain Prometheus saw,
    // serving in the last one.
    bool lame_seen = false;
    for (const admin::Telemetry& t : replica->snapshots) {
      if (t.unix_ms() < drained_ms_ - 1000) continue;
      lame_seen |= t.state() == admin::NODE_LAME_DUCK;
      if (t.state() == admin::NODE_LAME_DUCK) {
        QVERIFY2(
            t.unix_ms() <= undrained_ms_ + 2000,
            qPrintable(
                QString("lame duck %1 ms after the undrain").arg(t.unix_ms() - undrained_ms_)));
      }
    }
    QVERIFY(lame_seen);
    QCOMPARE(replica_last.state(), admin::NODE_SERVING);

    // The stopped updater: one gap (its scrapes timed out), and the same process after it.
    QVERIFY2(GapIn(*updater, stopped_ms_, resumed_ms_),
             qPrintable(QString("no gap between the stop at %1 and the resume at %2: %3")
                            .arg(stopped_ms_)
                            .arg(resumed_ms_)
                            .arg(Gaps(*updater))));
    qInfo("updater: stopped at %lld, resumed at %lld; %s", static_cast<long long>(stopped_ms_),
          static_cast<long long>(resumed_ms_), qPrintable(Gaps(*updater)));
    RAILYARD_VERIFY_FIGURE(updater->gaps.size() == 1, qPrintable(Gaps(*updater)));
    for (const admin::Telemetry& t : updater->snapshots) {
      QVERIFY2(std::abs(t.started_unix_ms() - own.started_unix_ms()) < 5000,
               "the stopped updater reads as a new process");
    }
  }

  // railyardctl record --prometheus and the console's --prometheus: a recording of the range.
  void theCommandLinesRecordTheRange() {
    const QString out = dir_.filePath("past.rec");
    QString said;
    const QString since = QString("%1s").arg((cluster::UnixMsNow() - started_ms_) / 1000 + 5);
    QCOMPARE(e2e::RunCtl(QString(railyard::testing::BuiltProgram("railyardctl")),
                         {"record", "--prometheus", prometheus_.url(), "--since", since, "--step",
                          "1s", "--match", "job=\"railyard\"", "-o", out},
                         &said),
             0);
    std::unique_ptr<railyard::trace::RecordingReader> reader;
    QVERIFY(railyard::trace::RecordingReader::Open(out.toStdString(), &reader).ok());
    std::vector<std::string> nodes;
    QVERIFY(reader->Nodes(&nodes).ok());
    QCOMPARE(nodes.size(), size_t{2});
    std::vector<railyard::trace::Event> events;
    QVERIFY(reader->Events(&events).ok());
    bool outage = false;
    for (const auto& e : events) outage |= e.kind == "unreachable" && e.node == "replica";
    QVERIFY2(outage, "the replica's outage is not in the recording");

    // The console opens the same range (offscreen) and keeps it in its cache folder.
    QProcess console;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    env.insert("XDG_CACHE_HOME", dir_.filePath("cache"));
    env.insert("XDG_CONFIG_HOME", dir_.filePath("config"));
    console.setProcessEnvironment(env);
    console.setProcessChannelMode(QProcess::MergedChannels);
    const QString shot = dir_.filePath("console.png");
    console.start(QString(railyard::testing::BuiltProgram("railyard")),
                  {"--prometheus", prometheus_.url(), "--since", since, "--screenshot", shot,
                   "--quit-after-s", "1"});
    QVERIFY(console.waitForFinished(60000));
    QVERIFY2(console.exitCode() == 0, console.readAll().constData());
    QVERIFY(QFile::exists(shot));
    QCOMPARE(QDir(dir_.filePath("cache/railyard/prometheus")).entryList({"*.rec"}).size(), 1);
  }

  // File > Open Prometheus range: read on a worker thread, then replayed at its end on the
  // Throughput tab; the view's command line names the range, not the cached file.
  void theWindowOpensARangeWithoutBlocking() {
    railyard::ui::MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir_.filePath("audit.sqlite");
    qputenv("XDG_CACHE_HOME", dir_.filePath("window-cache").toUtf8());
    railyard::ui::MainWindow window(options);
    QSignalSpy opened(&window, &railyard::ui::MainWindow::PrometheusRangeOpened);
    cluster::PrometheusSourceSpec spec;
    spec.url = prometheus_.url().toStdString();
    spec.since = "20m";
    spec.match = "job=\"railyard\"";
    window.OpenPrometheusRange(spec);
    QVERIFY(opened.wait(60000));
    QCOMPARE(opened.at(0).at(0).toString(), QString());
    QCOMPARE(window.State()->NodeCount(), 2);
    QCOMPARE(window.Tabs()->currentWidget(), window.throughput_view());
    QCOMPARE(window.throughput_view()->WindowMinutes(), 60);  // The narrowest that holds 20m.
    QCOMPARE(window.replay_source()->PositionMs(), window.replay_source()->EndMs());
    const QStringList source = window.CurrentViewLink().source;
    QCOMPARE(source.mid(0, 4), QStringList({"--prometheus", prometheus_.url(), "--since", "20m"}));
    QVERIFY(source.contains("--until") && source.contains("--match"));

    // Nothing there: said, and the window stays as it was.
    spec.url = "http://127.0.0.1:" + std::to_string(railyard::testing::FreePort());
    window.OpenPrometheusRange(spec);
    QVERIFY(opened.wait(60000));
    QVERIFY2(opened.at(1).at(0).toString().contains("Prometheus at"),
             qPrintable(opened.at(1).at(0).toString()));
    QCOMPARE(window.State()->NodeCount(), 2);
  }

  // Each wrong turn says what is wrong, and writes nothing.
  void mistakesGetClearErrors() {
    std::vector<cluster::PrometheusNodePast> pasts;
    cluster::PrometheusServer server = Server();
    // A port that speaks another protocol: the updater's /metrics listener is HTTP but not the API.
    server.url = "http://" + Instance("updater").toStdString();
    railyard::base::Status s = cluster::FetchPrometheusHistory(server, Range(), &pasts);
    QVERIFY2(s.code() == railyard::base::StatusCode::kProtocolError, s.ToString().c_str());
    // Nothing listening.
    server.url = "http://127.0.0.1:" + std::to_string(railyard::testing::FreePort());
    s = cluster::FetchPrometheusHistory(server, Range(), &pasts);
    QVERIFY2(s.code() == railyard::base::StatusCode::kUnavailable, s.ToString().c_str());
    // A matcher Prometheus cannot parse: its own words come back.
    cluster::PrometheusHistoryOptions range = Range();
    range.match = "job=";
    s = cluster::FetchPrometheusHistory(Server(), range, &pasts);
    QVERIFY2(s.IsInvalidArgument() && s.message().find("parse error") != std::string::npos,
             s.ToString().c_str());
    // No Railyard target matches.
    range.match = "job=\"elsewhere\"";
    s = cluster::FetchPrometheusHistory(Server(), range, &pasts);
    QVERIFY2(s.IsNotFound(), s.ToString().c_str());

    const QString out = dir_.filePath("never.rec");
    QString said;
    QCOMPARE(e2e::RunCtl(QString(railyard::testing::BuiltProgram("railyardctl")),
                         {"record", "--prometheus", "prometheus:9090", "-o", out}, &said),
             2);
    QVERIFY2(said.contains("a URL such as"), qPrintable(said));
    QCOMPARE(e2e::RunCtl(
                 QString(railyard::testing::BuiltProgram("railyardctl")),
                 {"record", "--prometheus", prometheus_.url(), "--since", "yesterday", "-o", out},
                 &said),
             2);
    QVERIFY2(said.contains("--since yesterday"), qPrintable(said));
    QVERIFY(!QFile::exists(out));
  }

  // The tests' HTTP helper reads a large answer whole: Prometheus sends one larger than its
  // buffer in chunks, which the alert drills once read as no answer at all.
  void aLargeAnswerFromPrometheusArrivesWhole() {
    const railyard::testing::HttpAnswer answer =
        railyard::testing::HttpGet("127.0.0.1", prometheus_.port(), "/api/v1/metadata");
    QCOMPARE(answer.status, 200);
    QVERIFY2(QString::fromStdString(answer.head)
                 .contains("transfer-encoding: chunked", Qt::CaseInsensitive),
             answer.head.c_str());  // Else this no longer tests the chunked path.
    QJsonParseError error;
    const QJsonDocument document =
        QJsonDocument::fromJson(QByteArray::fromStdString(answer.body), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    QCOMPARE(document.object()["status"].toString(), QString("success"));
    QVERIFY(document.object()["data"].toObject().contains("railyard_node_info"));
  }

  void cleanupTestCase() { prometheus_.Stop(); }
};

RAILYARD_QTEST_MAIN(PrometheusHistoryTest)
#include "tst_prometheus_history.moc"
