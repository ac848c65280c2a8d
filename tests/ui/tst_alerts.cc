// SPDX-License-Identifier: Apache-2.0
// The console's alerts (AlertModel, the Alerts tab) on a real node polled live: a drain fires a
// lame-duck rule and the undrain resolves it, a node that stops answering goes pending and then
// firing after the rule's for_s, each firing and resolving is a mark on the node's throughput
// axis, and the tab says what fires. A quiet, healthy node fires nothing. A firing alert reaches
// the desktop's notification service over D-Bus.
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

#include "core/cluster/admin_client.h"
#include "core/cluster/alert_rules.h"
#include "core/node/node.h"
#include "tests/support/admin_tokens.h"
#include "tests/support/flight_history.h"
#include "tests/support/free_port.h"
#include "tests/support/qtest_main.h"
#include "tests/support/rules_for_this_disk.h"
#include "tests/support/test_paths.h"
#include "tests/support/wait_until.h"
#include "ui/models/alert_model.h"
#include "ui/models/incident_model.h"
#include "ui/models/throughput_model.h"
#include "ui/session/session.h"
#include "ui/shell/alert_notifier.h"
#include "ui/shell/main_window.h"
#include "ui/sources/live_source.h"
#include "ui/sources/replay_source.h"
#include "ui/views/alerts_view.h"
#include "ui/views/incident_view.h"
#include "ui/views/throughput_view.h"
#include "ui/views/timeline_slider.h"
#include "ui/views/timeline_widget.h"

namespace {

std::unique_ptr<railyard::node::Node> OpenWatchedNode(const QString& dir,
                                                      int flight_interval_ms = 1000) {
  railyard::node::NodeOptions options;
  options.flight.interval = std::chrono::milliseconds(flight_interval_ms);
  options.name = "watched";
  options.data_dir = dir.toStdString();
  options.io_threads = 1;
  options.worker_threads = 1;
  options.admin.viewer_tokens = {railyard::testing::kViewerToken};
  options.admin.operator_tokens = {railyard::testing::kOperatorToken};
  std::unique_ptr<railyard::node::Node> node;
  if (!railyard::node::Node::Open(options, &node).ok()) return nullptr;
  return node;
}

// The shipped rules, with a drain firing at once and a silent node after 1 s; the disk rules as
// the machine's disk under `data_dir` allows.
railyard::alerts::Rules FastRules(const QString& data_dir) {
  railyard::alerts::Rules rules = railyard::testing::RulesForThisDisk(
      railyard::cluster::DefaultAlertRules(), data_dir.toStdString());
  for (railyard::alerts::Rule& r : *rules.mutable_rule()) {
    if (r.figure() == railyard::alerts::NODE_LAME_DUCK) r.set_for_s(0);
    if (r.figure() == railyard::alerts::NODE_NOT_ANSWERING) r.set_for_s(1);
  }
  return rules;
}

int Count(const railyard::ui::AlertModel& model, const std::string& rule,
          railyard::cluster::AlertPhase phase) {
  int n = 0;
  for (const railyard::cluster::AlertTransition& t : model.History()) {
    n += t.rule == rule && t.phase == phase ? 1 : 0;
  }
  return n;
}

// Someone drains `node` and undrains it once its recorder has 5 snapshots of the drain, then
// waits until it has 5 more taken `then_ms` after the undrain; the times of both commands.
bool DrainedAndUndrained(railyard::node::Node& node, qint64 then_ms, qint64* drained,
                         qint64* undrained) {
  auto recorded_after = [&](qint64 ms) {
    const std::vector<qint64> times = railyard::testing::FlightRecorderTimes(
        node.admin_endpoint(), railyard::testing::kViewerToken);
    return std::count_if(times.begin(), times.end(), [ms](qint64 t) { return t > ms; });
  };
  railyard::cluster::AdminClient op(node.admin_endpoint(), railyard::testing::kOperatorToken,
                                    "tst");
  railyard::admin::AdminResponse response;
  if (!op.Connect(std::chrono::seconds(5)).ok()) return false;
  *drained = QDateTime::currentMSecsSinceEpoch();
  if (!op.Drain(&response).ok() ||
      !railyard::testing::WaitUntil([&] { return recorded_after(*drained + 100) >= 5; })) {
    return false;
  }
  *undrained = QDateTime::currentMSecsSinceEpoch();
  return op.Undrain(&response).ok() &&
         railyard::testing::WaitUntil([&] { return recorded_after(*undrained + then_ms) >= 5; });
}

// Empty if `rule` fired once within [drained, undrained) and resolved once within a second
// after the undrain; else what is out of place.
QString DrainAlertMisplaced(const railyard::ui::AlertModel& alerts, const std::string& rule,
                            qint64 drained, qint64 undrained) {
  using railyard::cluster::AlertPhase;
  const int fired = Count(alerts, rule, AlertPhase::kFiring);
  const int resolved = Count(alerts, rule, AlertPhase::kResolved);
  if (fired != 1 || resolved != 1) {
    return QString("fired %1 times, resolved %2 times").arg(fired).arg(resolved);
  }
  for (const railyard::cluster::AlertTransition& t : alerts.History()) {
    if (t.rule != rule) continue;
    const bool at_its_time = t.phase == AlertPhase::kFiring
                                 ? t.unix_ms >= drained && t.unix_ms < undrained
                                 : t.unix_ms >= undrained && t.unix_ms < undrained + 1000;
    if (!at_its_time) {
      return QString("%1 at %2 (drained %3, undrained %4)")
          .arg(railyard::cluster::AlertPhaseName(t.phase))
          .arg(t.unix_ms)
          .arg(drained)
          .arg(undrained);
    }
  }
  return {};
}

// Stands in for the desktop's notification service on a real session bus of the test's own (no
// notification daemon is installed here): records each Notify call.
class NotificationService : public QObject {
  Q_OBJECT
  Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Notifications")
 public:
  struct Call {
    QString app, summary, body;
    int urgency = -1;
  };
  std::vector<Call> calls;

 public Q_SLOTS:
  uint Notify(const QString& app, uint, const QString&, const QString& summary, const QString& body,
              const QStringList&, const QVariantMap& hints, int) {
    calls.push_back({app, summary, body, hints.value("urgency").toInt()});
    return static_cast<uint>(calls.size());
  }
};

}  // namespace

class AlertsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void drainsAndSilenceFireAndResolve() {
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> node = OpenWatchedNode(dir.filePath("n"));
    QVERIFY(node);
    railyard::ui::Session::Options options;
    options.use_keyring = false;
    options.audit_path = dir.filePath("audit.sqlite");
    options.alert_rules = FastRules(dir.path());
    options.alert_rules_source = "fast rules";
    railyard::ui::Session session(options);
    railyard::ui::AlertModel& alerts = *session.models().alerts;
    railyard::ui::AlertsView view(&alerts);
    QString error;
    QVERIFY2(session.AddNode(QString("127.0.0.1:%1").arg(node->admin_endpoint().port),
                             railyard::testing::kViewerToken, &error),
             qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(session.State()->Node(0).health == railyard::ui::NodeHealth::kServing,
                             10000);
    // Quiet and healthy: nothing new for a good number of frames. (While it opened its store it
    // was starting: that rule's pending, which its 10 minutes drop.)
    for (const railyard::cluster::AlertTransition& t : alerts.History()) {
      QCOMPARE(t.rule, std::string("RailyardStuckStarting"));
      QCOMPARE(t.phase, railyard::cluster::AlertPhase::kPending);
    }
    const size_t before = alerts.History().size();
    const quint64 frames = session.live_source()->FramesApplied();
    QTRY_VERIFY_WITH_TIMEOUT(session.live_source()->FramesApplied() >= frames + 10, 10000);
    QCOMPARE(alerts.History().size(), before);
    QVERIFY(alerts.Active().empty());
    QCOMPARE(view.Summary(), QString("0 firing, 0 pending; %1 rules (fast rules)")
                                 .arg(railyard::cluster::DefaultAlertRules().rule_size()));

    railyard::cluster::AdminClient op(node->admin_endpoint(), railyard::testing::kOperatorToken,
                                      "tst");
    QVERIFY(op.Connect(std::chrono::seconds(5)).ok());
    railyard::admin::AdminResponse response;
    QVERIFY(op.Drain(&response).ok());
    QTRY_VERIFY_WITH_TIMEOUT(
        Count(alerts, "RailyardLameDuckTooLong", railyard::cluster::AlertPhase::kFiring) == 1,
        10000);
    QCOMPARE(alerts.FiringCount(), 1);
    QCOMPARE(alerts.ActiveTable()->rowCount(), 1);
    QCOMPARE(alerts.ActiveTable()->index(0, 2).data().toString(),
             QString("RailyardLameDuckTooLong"));
    QVERIFY(view.Summary().startsWith("1 firing, 0 pending"));
    QVERIFY(op.Undrain(&response).ok());
    QTRY_VERIFY_WITH_TIMEOUT(
        Count(alerts, "RailyardLameDuckTooLong", railyard::cluster::AlertPhase::kResolved) == 1,
        10000);
    QCOMPARE(alerts.FiringCount(), 0);

    // Silent: pending at the first failed poll, firing 1 s later, a mark on its axis.
    node->Shutdown(std::chrono::milliseconds(0));
    node.reset();
    QTRY_VERIFY_WITH_TIMEOUT(
        Count(alerts, "RailyardNodeDown", railyard::cluster::AlertPhase::kPending) == 1, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(
        Count(alerts, "RailyardNodeDown", railyard::cluster::AlertPhase::kFiring) == 1, 10000);
    qint64 pending_ms = 0, firing_ms = 0;
    for (const railyard::cluster::AlertTransition& t : alerts.History()) {
      if (t.rule != "RailyardNodeDown") continue;
      (t.phase == railyard::cluster::AlertPhase::kPending ? pending_ms : firing_ms) = t.unix_ms;
    }
    QVERIFY(firing_ms - pending_ms >= 1000);
    QCOMPARE(alerts.History().front().summary, std::string("railyard node watched is down"));
    bool marked = false;
    for (const railyard::ui::ThroughputEvent& e :
         session.models().throughput->Events(0, LLONG_MIN, LLONG_MAX)) {
      marked = marked || e.command == "RailyardNodeDown firing";
    }
    QVERIFY(marked);
    // Only what was asked for fired.
    for (const railyard::cluster::AlertTransition& t : alerts.History()) {
      QVERIFY2(t.rule == "RailyardNodeDown" || t.rule == "RailyardLameDuckTooLong" ||
                   t.phase == railyard::cluster::AlertPhase::kPending,
               t.rule.c_str());
    }
    QCOMPARE(view.HistoryTable()->model()->rowCount(), static_cast<int>(alerts.History().size()));
    session.Stop();
  }

  // What fired before the console looked: a drain and an undrain the node's flight recorder
  // kept are evaluated from the backfill, at their own times, into the history and the marks,
  // and told as past (nothing for the desktop).
  void alertsOfThePastComeWithTheBackfill() {
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> node = OpenWatchedNode(dir.filePath("n"), 20);
    QVERIFY(node);
    qint64 drained = 0, undrained = 0;
    QVERIFY(DrainedAndUndrained(*node, 100, &drained, &undrained));

    railyard::ui::Session::Options options;
    options.use_keyring = false;
    options.audit_path = dir.filePath("audit.sqlite");
    options.alert_rules = FastRules(dir.path());
    railyard::ui::Session session(options);
    railyard::ui::AlertModel& alerts = *session.models().alerts;
    QSignalSpy changed(&alerts, &railyard::ui::AlertModel::AlertsChanged);
    QSignalSpy backfilled(session.live_source(), &railyard::ui::LiveSource::Backfilled);
    const qint64 opened = QDateTime::currentMSecsSinceEpoch();
    QString error;
    QVERIFY2(session.AddNode(QString("127.0.0.1:%1").arg(node->admin_endpoint().port),
                             railyard::testing::kViewerToken, &error),
             qPrintable(error));
    QVERIFY(backfilled.wait(10000));
    qint64 fired_at = 0, resolved_at = 0;
    for (const railyard::cluster::AlertTransition& t : alerts.History()) {
      if (t.rule != "RailyardLameDuckTooLong") continue;
      if (t.phase == railyard::cluster::AlertPhase::kFiring) fired_at = t.unix_ms;
      if (t.phase == railyard::cluster::AlertPhase::kResolved) resolved_at = t.unix_ms;
    }
    QVERIFY2(fired_at >= drained && fired_at < undrained, qPrintable(QString::number(fired_at)));
    QVERIFY2(resolved_at >= undrained && resolved_at < opened,
             qPrintable(QString::number(resolved_at)));
    bool told_as_past = false;
    for (const QList<QVariant>& signal : changed) told_as_past |= signal.at(1).toBool();
    QVERIFY(told_as_past);
    bool marked = false;
    for (const railyard::ui::ThroughputEvent& e :
         session.models().throughput->Events(0, LLONG_MIN, opened)) {
      marked = marked || e.command == "RailyardLameDuckTooLong firing";
    }
    QVERIFY(marked);
    QCOMPARE(alerts.FiringCount(), 0);  // Over before the console looked.
    session.Stop();
    node->Shutdown(std::chrono::milliseconds(0));
  }

  // The day behind the backfill (read beside the polling, put before the node's series) is
  // evaluated too, apart from what fires now: a drain and undrain that happened before the
  // backfill's recent stretch fire and resolve once each in the history, told as past.
  void alertsOfTheDayBehindTheBackfillComeToo() {
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> node = OpenWatchedNode(dir.filePath("n"), 20);
    QVERIFY(node);
    qint64 drained = 0, undrained = 0;
    // Recorded on well past the recent stretch the backfill will read (500 ms).
    QVERIFY(DrainedAndUndrained(*node, 1000, &drained, &undrained));

    railyard::ui::Session::Options options;
    options.use_keyring = false;
    options.audit_path = dir.filePath("audit.sqlite");
    options.alert_rules = FastRules(dir.path());
    railyard::ui::Session session(options);
    railyard::ui::LiveSource::Options live = session.live_source()->options();
    live.backfill_span = std::chrono::milliseconds(500);
    session.live_source()->SetOptions(live);
    railyard::ui::AlertModel& alerts = *session.models().alerts;
    QSignalSpy changed(&alerts, &railyard::ui::AlertModel::AlertsChanged);
    QSignalSpy backfilled(session.live_source(), &railyard::ui::LiveSource::Backfilled);
    QSignalSpy filled(session.live_source(), &railyard::ui::LiveSource::GapFilled);
    QString error;
    QVERIFY2(session.AddNode(QString("127.0.0.1:%1").arg(node->admin_endpoint().port),
                             railyard::testing::kViewerToken, &error),
             qPrintable(error));
    QVERIFY(backfilled.wait(10000));
    QVERIFY2(backfilled.at(0).at(2).toLongLong() > undrained,
             "the recent stretch reaches back to the undrain: nothing left for the day behind");
    QTRY_VERIFY_WITH_TIMEOUT(filled.count() == 1, 10000);
    const std::string rule = "RailyardLameDuckTooLong";
    const QString misplaced = DrainAlertMisplaced(alerts, rule, drained, undrained);
    QVERIFY2(misplaced.isEmpty(), qPrintable(misplaced));
    // The history stays newest first.
    for (size_t i = 1; i < alerts.History().size(); ++i) {
      QVERIFY(alerts.History()[i - 1].unix_ms >= alerts.History()[i].unix_ms);
    }
    QVERIFY(changed.last().at(1).toBool());  // Told as past.
    QCOMPARE(alerts.FiringCount(), 0);
    session.Stop();
    node->Shutdown(std::chrono::milliseconds(0));
  }

  // A stretch the console could not look at (stopped here; a partition or a suspended laptop
  // alike) while someone drained and undrained the node: once the recorder fills the hole, the
  // drain's alert fired and resolved there, at its times, told as past; nothing fires now.
  void alertsWhereTheConsoleCouldNotLookComeFromTheRecorder() {
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> node = OpenWatchedNode(dir.filePath("n"), 20);
    QVERIFY(node);
    railyard::ui::Session::Options options;
    options.use_keyring = false;
    options.audit_path = dir.filePath("audit.sqlite");
    options.alert_rules = FastRules(dir.path());
    railyard::ui::Session session(options);
    session.State()->SetStaleAfterMs(300);
    railyard::ui::LiveSource::Options live = session.live_source()->options();
    live.backfill_day_span = std::chrono::milliseconds(0);  // Only the hole is filled.
    session.live_source()->SetOptions(live);
    railyard::ui::AlertModel& alerts = *session.models().alerts;
    QSignalSpy filled(session.live_source(), &railyard::ui::LiveSource::GapFilled);
    QString error;
    QVERIFY2(session.AddNode(QString("127.0.0.1:%1").arg(node->admin_endpoint().port),
                             railyard::testing::kViewerToken, &error),
             qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(session.live_source()->FramesApplied() > 5, 10000);
    session.live_source()->Stop();
    const std::string rule = "RailyardLameDuckTooLong";
    QCOMPARE(Count(alerts, rule, railyard::cluster::AlertPhase::kFiring), 0);
    qint64 drained = 0, undrained = 0;
    QVERIFY(DrainedAndUndrained(*node, 400, &drained, &undrained));
    session.live_source()->Start();
    QVERIFY(filled.wait(10000));
    const QString misplaced = DrainAlertMisplaced(alerts, rule, drained, undrained);
    QVERIFY2(misplaced.isEmpty(), qPrintable(misplaced));
    // The console's own word on whether it answered: it was never seen not answering.
    QCOMPARE(Count(alerts, "RailyardNodeDown", railyard::cluster::AlertPhase::kFiring), 0);
    QCOMPARE(alerts.FiringCount(), 0);
    session.Stop();
    node->Shutdown(std::chrono::milliseconds(0));
  }

  // The replay timeline marks where the recording's alerts fire and resolve, found by its scan
  // before anything is played: the same alerts the Alerts tab evaluates once the recording has
  // played through, each within a frame of the other's time.
  void theReplayTimelineMarksTheRecordingsAlerts() {
    QTemporaryDir dir;
    const QString copy = dir.filePath("console_small.rec");
    QVERIFY(
        QFile::copy(QString(railyard::testing::SourcePath("tests/data/console_small.rec")), copy));
    railyard::ui::MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir.filePath("audit.sqlite");
    options.alert_rules = FastRules(dir.path());
    railyard::ui::MainWindow window(options);
    QString error;
    QVERIFY2(window.OpenRecording(copy, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(window.Timeline()->StateMarksReady(), 10000);
    struct Seen {
      QString what;  // "<rule> <phase> <node>".
      qint64 at_ms;
    };
    QVector<Seen> marked;
    const qint64 start = window.replay_source()->StartMs();
    for (const auto& m : window.Timeline()->Slider()->Marks()) {
      if (!m.kind.endsWith(" firing") && !m.kind.endsWith(" resolved")) continue;
      const QString node = m.label.section("  ", 1, 1);
      marked.push_back({m.kind + " " + node,
                        start + qint64(m.value) * railyard::ui::TimelineWidget::kSliderStepMs});
    }
    QVERIFY2(!marked.isEmpty(), "the drain in the recording fires RailyardLameDuckTooLong");
    window.replay_source()->Seek(window.replay_source()->EndMs());
    QVector<Seen> evaluated;
    const auto& history = window.session()->models().alerts->History();
    for (auto it = history.rbegin(); it != history.rend(); ++it) {  // Oldest first.
      if (it->phase == railyard::cluster::AlertPhase::kPending) continue;
      evaluated.push_back(
          {QString("%1 %2 %3")
               .arg(QString::fromStdString(it->rule), railyard::cluster::AlertPhaseName(it->phase),
                    QString::fromStdString(it->node)),
           it->unix_ms});
    }
    QCOMPARE(marked.size(), evaluated.size());
    for (int i = 0; i < marked.size(); ++i) {
      QCOMPARE(marked[i].what, evaluated[i].what);
      // The slider's step and a frame apart at most.
      QVERIFY2(qAbs(marked[i].at_ms - evaluated[i].at_ms) <=
                   railyard::ui::TimelineWidget::kSliderStepMs + 100,
               qPrintable(QString("%1: %2 vs %3")
                              .arg(marked[i].what)
                              .arg(marked[i].at_ms)
                              .arg(evaluated[i].at_ms)));
    }
  }

  // A firing alert reaches the desktop's notification service over D-Bus (a session bus of the
  // test's own, from Debian's dbus-daemon), with its severity as urgency; pending and resolved
  // ones do not; turned off, nothing is sent.
  void firingAlertsReachTheDesktop() {
    QProcess daemon;
    daemon.start("dbus-daemon", {"--session", "--nofork", "--print-address=1"});
    QVERIFY2(daemon.waitForStarted(10000), "dbus-daemon is not installed (Debian: dbus-daemon)");
    QVERIFY(daemon.waitForReadyRead(10000));
    const QString address = QString::fromUtf8(daemon.readLine()).trimmed();
    QVERIFY2(address.startsWith("unix:"), qPrintable(address));
    {
      QDBusConnection service_bus = QDBusConnection::connectToBus(address, "notifications");
      QVERIFY(service_bus.isConnected());
      NotificationService service;
      QVERIFY(service_bus.registerObject("/org/freedesktop/Notifications", &service,
                                         QDBusConnection::ExportAllSlots));
      QVERIFY(service_bus.registerService("org.freedesktop.Notifications"));
      QDBusConnection console_bus = QDBusConnection::connectToBus(address, "console");
      QVERIFY(console_bus.isConnected());

      railyard::ui::ClusterState state;
      state.AddNode("127.0.0.1:7001", "n1");
      railyard::ui::AlertModel alerts(&state, FastRules(QDir::tempPath()), "fast rules");
      railyard::ui::AlertNotifier notifier(&alerts, console_bus);
      QCOMPARE(notifier.CurrentChannel(), railyard::ui::AlertNotifier::Channel::kFreedesktop);
      auto frame = [&](qint64 ms, railyard::admin::NodeState node_state) {
        auto t = std::make_shared<railyard::admin::Telemetry>();
        t->set_node("n1");
        t->set_unix_ms(ms);
        t->set_state(node_state);
        state.ApplyFrame({{0, t, {}, ms}}, ms);
      };
      frame(1000, railyard::admin::NODE_SERVING);
      frame(2000, railyard::admin::NODE_LAME_DUCK);  // Fires at once (for 0).
      QTRY_VERIFY_WITH_TIMEOUT(service.calls.size() == 1, 10000);
      QCOMPARE(service.calls[0].app, QString("Railyard"));
      QCOMPARE(service.calls[0].summary, QString("RailyardLameDuckTooLong (warning)"));
      QCOMPARE(service.calls[0].body, QString("railyard node n1 has been draining for 10 minutes"));
      QCOMPARE(service.calls[0].urgency, 1);
      frame(3000, railyard::admin::NODE_SERVING);  // Resolved: not sent.
      notifier.SetEnabled(false);
      frame(4000, railyard::admin::NODE_LAME_DUCK);
      QCOMPARE(alerts.FiringCount(), 1);
      // On again, the next firing (another rule, critical) arrives second: messages on one
      // connection keep their order, so the one while off was never sent.
      frame(5000, railyard::admin::NODE_SERVING);
      notifier.SetEnabled(true);
      state.ApplyFrame({{0, nullptr, "connection refused", 6000}}, 6000);
      state.ApplyFrame({{0, nullptr, "connection refused", 7100}}, 7100);
      QTRY_VERIFY_WITH_TIMEOUT(service.calls.size() >= 2, 10000);
      QCOMPARE(service.calls[1].summary, QString("RailyardNodeDown (critical)"));
      QCOMPARE(service.calls[1].urgency, 2);
      QCOMPARE(notifier.Sent(), 2);
      // A replay's alerts fired long ago: not told.
      notifier.SetWatchingLive(false);
      frame(8000, railyard::admin::NODE_LAME_DUCK);  // Answers again, and drains.
      QCOMPARE(alerts.FiringCount(), 1);
      QCOMPARE(notifier.Sent(), 2);
    }
    QDBusConnection::disconnectFromBus("console");
    QDBusConnection::disconnectFromBus("notifications");
    daemon.kill();
    QVERIFY(daemon.waitForFinished(10000));
  }

  // The Incidents tab: one list of what happened (a drain and undrain someone else ran, with who
  // asked; the node going down; its alert firing), newest first, exported as CSV oldest first;
  // a click centres the live charts on that moment.
  void theIncidentTimelineListsWhatHappenedAndJumpsThere() {
    QTemporaryDir dir;
    std::unique_ptr<railyard::node::Node> node = OpenWatchedNode(dir.filePath("n"));
    QVERIFY(node);
    railyard::ui::MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir.filePath("audit.sqlite");
    options.alert_rules = FastRules(dir.path());
    railyard::ui::MainWindow window(options);
    window.resize(1200, 700);
    window.show();
    QVERIFY(window.AddNode(QString("127.0.0.1:%1").arg(node->admin_endpoint().port),
                           railyard::testing::kViewerToken, nullptr));
    QTRY_VERIFY_WITH_TIMEOUT(window.State()->Node(0).health == railyard::ui::NodeHealth::kServing,
                             10000);
    railyard::cluster::AdminClient op(node->admin_endpoint(), railyard::testing::kOperatorToken,
                                      "someone-else");
    QVERIFY(op.Connect(std::chrono::seconds(5)).ok());
    railyard::admin::AdminResponse response;
    QVERIFY(op.Drain(&response).ok());
    QVERIFY(op.Undrain(&response).ok());
    // Seen in a poll (the node's telemetry lists its recent commands) before it goes.
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          const auto& t = window.State()->Node(0).telemetry;
          return t && t->recent_commands_size() >= 2 &&
                 t->recent_commands(t->recent_commands_size() - 1).command() == "undrain";
        }(),
        10000);
    node->Shutdown(std::chrono::milliseconds(0));
    node.reset();
    railyard::ui::IncidentModel& incidents = *window.session()->models().incidents;
    auto has = [&](const QString& what, const QString& detail) {
      for (const railyard::ui::ThroughputEvent& e : incidents.Events()) {
        if (e.command == what && e.detail.contains(detail)) return true;
      }
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(has("RailyardNodeDown firing", "railyard node watched is down"),
                             15000);
    QVERIFY(has("drain", "someone-else"));
    QVERIFY(has("undrain", "someone-else"));
    QVERIFY(has(railyard::ui::ThroughputEvent::kDown, ""));
    // Newest first.
    for (int i = 1; i < incidents.Events().size(); ++i) {
      QVERIFY(incidents.Events()[i - 1].t_ms >= incidents.Events()[i].t_ms);
    }
    QCOMPARE(incidents.index(0, railyard::ui::IncidentModel::kNode).data().toString(),
             QString("watched"));

    const QString csv_path = dir.filePath("incidents.csv");
    QString error;
    QVERIFY2(window.incident_view()->ExportCsv(csv_path, &error), qPrintable(error));
    QFile csv(csv_path);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(csv.readAll()).trimmed().split('\n');
    QCOMPARE(lines.size(), incidents.Events().size() + 1);
    QCOMPARE(lines[0], QString("time_unix_ms,time,node,what,detail"));
    QVERIFY2(lines[1].contains(",watched,drain,") && lines[1].contains("someone-else"),
             qPrintable(lines[1]));

    // A click on the drain: the Throughput tab, its charts centred on that moment.
    int drain_row = -1;
    for (int i = 0; i < incidents.rowCount(); ++i) {
      if (incidents.Events()[i].command == "drain") drain_row = i;
    }
    QVERIFY(drain_row >= 0);
    const qint64 drain_ms = incidents.Events()[drain_row].t_ms;
    window.Tabs()->setCurrentWidget(window.incident_view());
    QTableView* table = window.incident_view()->Table();
    const QRect cell = table->visualRect(incidents.index(drain_row, 0));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(window.Tabs()->currentIndex(), window.TabIndex("Throughput"));
    railyard::ui::ThroughputView* charts = window.findChild<railyard::ui::ThroughputView*>();
    QVERIFY(charts);
    QVERIFY(!charts->Following());
    const qint64 middle = (charts->VisibleFromMs() + charts->VisibleToMs()) / 2;
    QVERIFY2(std::abs(middle - drain_ms) <= 1000,
             qPrintable(QString("centred %1 ms off").arg(middle - drain_ms)));
    window.live_source()->Stop();
  }

  // Removing a node ends its alerts without a "resolved"; a new cluster starts afresh.
  void removedNodesTakeTheirAlertsAlong() {
    railyard::ui::Session::Options options;
    options.use_keyring = false;
    QTemporaryDir dir;
    options.audit_path = dir.filePath("audit.sqlite");
    options.alert_rules = FastRules(dir.path());
    railyard::ui::Session session(options);
    railyard::ui::AlertModel& alerts = *session.models().alerts;
    QString error;
    // Nothing listens there: not answering from the start.
    QVERIFY(session.AddNode(QString("127.0.0.1:%1").arg(railyard::testing::FreePort()),
                            railyard::testing::kViewerToken, &error));
    QTRY_VERIFY_WITH_TIMEOUT(alerts.FiringCount() == 1, 15000);
    QVERIFY(!session.RemoveNode(0).isEmpty());
    QCOMPARE(alerts.FiringCount(), 0);
    QVERIFY(alerts.Active().empty());
    QCOMPARE(Count(alerts, "RailyardNodeDown", railyard::cluster::AlertPhase::kResolved), 0);
    session.Stop();
  }
};

RAILYARD_QTEST_MAIN(AlertsTest)
#include "tst_alerts.moc"
