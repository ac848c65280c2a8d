// SPDX-License-Identifier: Apache-2.0
// docs/figures.md's figures on real railyard-node processes under real faults (the drills): a
// quiet cluster shows no lag and no long-poll latency; a stopped updater makes its replicas' lag
// unknown (telemetry, /metrics, railyardctl) and the poller says "timed out"; a stopped replica
// reads silent at its updater; a drain shows on every surface; a killed updater makes its
// replicas disconnected until it is restarted on its address; a wrong port is a clear error; a
// killed replica leaves the follower list and comes back when restarted. Each deadline is the one
// docs/figures.md states, with room for a loaded machine.
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <functional>

#include "core/cluster/telemetry_poller.h"
#include "core/node/node_metrics.h"
#include "core/node/replication_lag.h"
#include "tests/e2e/replication_support.h"
#include "tests/e2e/stopped.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

using namespace railyard;
using namespace railyard::e2e;

namespace {

using Clock = std::chrono::steady_clock;

// The replica's fetch waits up to 1 s at the head (FollowerOptions::wait); a connection is live
// while heard from within that plus kFollowSilenceAllowance. Telemetry is read on demand here, so
// a surface must agree within that window; the slack absorbs a loaded machine.
constexpr auto kSilentWithin = std::chrono::milliseconds(1000) + node::kFollowSilenceAllowance;
constexpr auto kSlack = std::chrono::seconds(10);

const admin::Follower* FollowerNamed(const admin::Replication& r, const QString& name) {
  for (const admin::Follower& f : r.followers()) {
    if (f.name() == name.toStdString()) return &f;
  }
  return nullptr;
}

QString Describe(const admin::Replication& r) {
  return QString("state %1, lag_known %2, %3 docs, %4 bytes, %5 s, error '%6'")
      .arg(admin::ReplicaState_Name(r.state()).c_str())
      .arg(r.lag_known())
      .arg(r.lag_docs())
      .arg(r.lag_bytes())
      .arg(r.lag_seconds())
      .arg(QString::fromStdString(r.last_error()));
}

}  // namespace

class ReplicationFiguresTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::unique_ptr<NodeProcess> updater_, replica1_, replica2_;

  std::unique_ptr<NodeProcess> StartNode(const QString& name, const QStringList& args) {
    return StartNodeIn(dir_.path(), name, args);
  }

  // Puts `count` documents and waits until both replicas have applied them.
  void WriteAndCatchUp(int count) {
    std::unique_ptr<rpc::Client> client = ConnectTo(*updater_);
    QVERIFY(client);
    uint64_t position = 0;
    for (int i = 0; i < count; ++i) {
      QVERIFY(Put(*client, static_cast<uint64_t>(i), "doc-" + std::to_string(i), &position).ok());
    }
    const QString where = WaitCaughtUp(*updater_, {replica1_.get(), replica2_.get()}, position);
    QVERIFY2(where.isEmpty(), qPrintable(where));
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QVERIFY(WriteTokenFiles(dir_.path()));
    updater_ = StartNode("updater", UpdaterArgs(dir_.path()));
    QVERIFY(updater_);
    replica1_ = StartNode("replica1", ReplicaArgs(dir_.path(), *updater_));
    replica2_ = StartNode("replica2", ReplicaArgs(dir_.path(), *updater_));
    QVERIFY(replica1_ && replica2_);
  }

  // A caught-up replica on a cluster nobody writes to is not behind: lag 0 in documents, bytes
  // and seconds for as long as it stays quiet (it grew one second per second before), on the
  // replica and in its updater's follower list.
  void quietClusterShowsNoLag() {
    WriteAndCatchUp(200);
    const auto quiet_for = kSilentWithin + std::chrono::seconds(2);
    const auto until = Clock::now() + quiet_for;
    int samples = 0;
    while (Clock::now() < until) {
      for (const NodeProcess* replica : {replica1_.get(), replica2_.get()}) {
        const admin::Replication r = ReplicationOf(*replica);
        QVERIFY2(r.state() == admin::REPLICA_TAILING && r.lag_known() && r.lag_docs() == 0 &&
                     r.lag_bytes() == 0 && r.lag_seconds() == 0 &&
                     r.applied_position() == r.head_position(),
                 qPrintable(replica->name() + ": " + Describe(r)));
        ++samples;
      }
      const admin::Replication u = ReplicationOf(*updater_);
      QCOMPARE(u.followers_size(), 2);
      for (const admin::Follower& f : u.followers()) {
        QVERIFY2(f.lag_known() && f.lag_docs() == 0 && f.lag_seconds() == 0,
                 qPrintable(QString::fromStdString(f.name() + " " + f.state())));
      }
      QThread::msleep(250);
    }
    QVERIFY(samples >= 4);
  }

  // The quiet updater's replicas long-poll it (repl.Fetch waits up to 1 s at the head): that is
  // not request latency. railyardctl status showed an idle updater's P99 as about 1,000,000 us.
  void requestLatencyLeavesOutLongPolls() {
    const admin::Telemetry t = TelemetryOf(*updater_);
    double fetch_p99 = 0;
    for (const admin::MethodStats& m : t.throughput().methods()) {
      if (m.method() == "repl.Fetch") fetch_p99 = m.p99_us();
    }
    QVERIFY2(fetch_p99 > 100'000, qPrintable(QString::number(fetch_p99)));  // Long-polls waited.
    QString out;
    QCOMPARE(RunCtl(BuiltProgram("railyardctl"),
                    {"status", "-n", updater_->admin_address(), "--token", kViewerToken}, &out),
             0);
    const QStringList lines = out.split('\n', Qt::SkipEmptyParts);
    QVERIFY2(lines.size() >= 2, qPrintable(out));
    const QStringList row = lines[1].split(' ', Qt::SkipEmptyParts);
    QVERIFY2(row.size() > 8, qPrintable(out));
    bool ok = false;
    const double p99 = row[8].toDouble(&ok);  // NODE STATE ROLE REPL LAG SERVICE REQ/S ERR/S P99
    QVERIFY2(ok && p99 < fetch_p99 / 2, qPrintable(out));
  }

  // SIGSTOP the updater: its replicas cannot hear from it, so they report disconnected with the
  // reason and an unknown lag (absent from /metrics, "unknown" in railyardctl), never "tailing,
  // 0 s". SIGCONT: tailing again with lag 0.
  void stoppedUpdaterMakesLagUnknown() {
    // The console's and railyardctl watch's poller, connected before the stop.
    cluster::PollerOptions poller_options;
    poller_options.wait_for_connect = true;
    cluster::TelemetryPoller poller({{0, updater_->admin(), kViewerToken, std::nullopt}},
                                    poller_options);
    std::vector<cluster::PollResult> polled = poller.PollRound();
    QVERIFY(polled.size() == 1 && polled[0].status.ok());
    Stopped stopped(updater_->pid());
    QVERIFY(stopped.ok());
    // C16: a stopped node is named as timed out, not left without a reason.
    polled = poller.PollRound();
    QVERIFY(polled.size() == 1);
    QVERIFY2(polled[0].status.message().find("timed out") != std::string::npos,
             polled[0].status.ToString().c_str());
    admin::Replication r;
    const bool unknown = WaitFor(
        [&] {
          r = ReplicationOf(*replica1_);
          return r.state() == admin::REPLICA_DISCONNECTED && !r.lag_known();
        },
        kSilentWithin + kSlack);
    QVERIFY2(unknown, qPrintable(Describe(r)));
    QVERIFY2(!r.last_error().empty(), qPrintable(Describe(r)));  // The reason, for the tooltip.

    node::NodeMetricsInput input;
    *input.telemetry.mutable_replication() = r;
    const std::string metrics = node::RenderNodeMetrics(input);
    QVERIFY2(metrics.find("railyard_replication_lag_seconds") == std::string::npos,
             metrics.c_str());
    QVERIFY(metrics.find("railyard_replication_state{state=\"REPLICA_DISCONNECTED\"} 1") !=
            std::string::npos);

    QString out;
    QCOMPARE(RunCtl(BuiltProgram("railyardctl"),
                    {"status", "-n", replica1_->admin_address(), "--token", kViewerToken}, &out),
             0);
    QVERIFY2(out.contains("unknown") && out.contains("disconnected"), qPrintable(out));

    stopped.Resume();
    const bool back = WaitFor(
        [&] {
          r = ReplicationOf(*replica1_);
          return r.state() == admin::REPLICA_TAILING && r.lag_known() && r.lag_seconds() == 0;
        },
        kSilentWithin + kSlack);
    QVERIFY2(back, qPrintable(Describe(r)));
  }

  // SIGSTOP a replica: its updater still holds its connections but hears no fetch, so it lists
  // the replica as silent with an unknown lag. SIGCONT: known again.
  void stoppedReplicaReadsSilent() {
    Stopped stopped(replica2_->pid());
    QVERIFY(stopped.ok());
    const admin::Follower* f = nullptr;
    admin::Replication u;
    const bool silent = WaitFor(
        [&] {
          u = ReplicationOf(*updater_);
          f = FollowerNamed(u, "replica2");
          return f && !f->lag_known() && f->state().rfind("silent", 0) == 0;
        },
        kSilentWithin + kSlack);
    QVERIFY2(silent, f ? f->state().c_str() : "replica2 not listed");
    stopped.Resume();
    QVERIFY(WaitFor(
        [&] {
          u = ReplicationOf(*updater_);
          f = FollowerNamed(u, "replica2");
          return f && f->lag_known();
        },
        kSilentWithin + kSlack));
  }

  // Drain and undrain a replica with railyardctl: lame duck on every surface, then serving, and
  // replication goes on meanwhile (a drained replica still follows its updater).
  void drainAndUndrainShowOnEverySurface() {
    const QString admin = replica1_->admin_address();
    QCOMPARE(RunCtl(BuiltProgram("railyardctl"), {"drain", "-n", admin, "--token", kOperatorToken}),
             0);
    admin::Telemetry t = TelemetryOf(*replica1_);
    QCOMPARE(t.state(), admin::NODE_LAME_DUCK);
    node::NodeMetricsInput input;
    input.telemetry = t;
    QVERIFY(node::RenderNodeMetrics(input).find("railyard_node_state{state=\"lame_duck\"} 1") !=
            std::string::npos);
    QString out;
    QCOMPARE(
        RunCtl(BuiltProgram("railyardctl"), {"status", "-n", admin, "--token", kViewerToken}, &out),
        0);
    QVERIFY2(out.contains("lame-duck"), qPrintable(out));
    QCOMPARE(t.replication().state(), admin::REPLICA_TAILING);  // Still following.
    QVERIFY(t.replication().lag_known());
    QCOMPARE(
        RunCtl(BuiltProgram("railyardctl"), {"undrain", "-n", admin, "--token", kOperatorToken}),
        0);
    QCOMPARE(TelemetryOf(*replica1_).state(), admin::NODE_SERVING);
  }

  // SIGKILL the updater: its replicas lose it at once (their connections close) and report
  // disconnected with an unknown lag; restarted on the same address, they tail it again with
  // lag 0 and it lists them again.
  void killedUpdaterThenRestarted() {
    updater_->Kill();
    admin::Replication r;
    for (const NodeProcess* replica : {replica1_.get(), replica2_.get()}) {
      const bool unknown = WaitFor(
          [&] {
            r = ReplicationOf(*replica);
            return r.state() == admin::REPLICA_DISCONNECTED && !r.lag_known() &&
                   !r.last_error().empty();
          },
          kSilentWithin + kSlack);
      QVERIFY2(unknown, qPrintable(replica->name() + ": " + Describe(r)));
    }
    QString error;
    QVERIFY2(updater_->Restart(&error), qPrintable(error));
    for (const NodeProcess* replica : {replica1_.get(), replica2_.get()}) {
      const bool back = WaitFor(
          [&] {
            r = ReplicationOf(*replica);
            return r.state() == admin::REPLICA_TAILING && r.lag_known() && r.lag_docs() == 0;
          },
          std::chrono::seconds(30));
      QVERIFY2(back, qPrintable(replica->name() + ": " + Describe(r)));
    }
    QVERIFY(WaitFor(
        [&] {
          const admin::Replication u = ReplicationOf(*updater_);
          return FollowerNamed(u, "replica1") && FollowerNamed(u, "replica2");
        },
        kSlack));
  }

  // A node's docservice port given where its admin port belongs: railyardctl says it could not
  // reach the admin service, with the reason, and exits 4 (unreachable), never 0.
  void aWrongPortIsAClearError() {
    QString out;
    const int rc =
        RunCtl(BuiltProgram("railyardctl"),
               {"status", "-n", replica1_->service_address(), "--token", kViewerToken}, &out);
    QVERIFY2(rc != 0, qPrintable(out));
    QVERIFY2(out.contains(replica1_->service_address()), qPrintable(out));
  }

  // SIGKILL a replica: the kernel closes its connections, and its updater drops it from the
  // follower list (it kept listing it as a follower before).
  void killedReplicaLeavesFollowerList() {
    QVERIFY(FollowerNamed(ReplicationOf(*updater_), "replica2"));
    replica2_->Kill();
    admin::Replication u;
    const bool gone = WaitFor(
        [&] {
          u = ReplicationOf(*updater_);
          return u.role() == admin::DOCSTORE_UPDATER && !FollowerNamed(u, "replica2");
        },
        kSlack);
    QVERIFY2(gone, u.DebugString().c_str());
    QVERIFY(FollowerNamed(u, "replica1"));
    // Restarted on the same address, it is listed and tails again.
    QString error;
    QVERIFY2(replica2_->Restart(&error), qPrintable(error));
    admin::Replication r;
    const bool back = WaitFor(
        [&] {
          r = ReplicationOf(*replica2_);
          return r.state() == admin::REPLICA_TAILING && r.lag_known() &&
                 FollowerNamed(ReplicationOf(*updater_), "replica2");
        },
        std::chrono::seconds(30));
    QVERIFY2(back, qPrintable(Describe(r)));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ReplicationFiguresTest)
#include "tst_replication_figures.moc"
