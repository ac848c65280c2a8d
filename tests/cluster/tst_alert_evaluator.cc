// SPDX-License-Identifier: Apache-2.0
// The alert rules' evaluation (core/cluster/alert_evaluator.h), as Prometheus evaluates the same
// rules: pending while a condition holds for less than its `for`, firing after, resolved when it
// stops; a pending alert that stops is dropped; an unknown figure holds nothing. The figures read
// from a real node's telemetry: a drain is a lame duck, the disk is known, writes are taken.
#include <QTemporaryDir>
#include <QTest>

#include "core/cluster/admin_client.h"
#include "core/cluster/alert_evaluator.h"
#include "core/cluster/alert_rules.h"
#include "core/node/node.h"
#include "tests/support/admin_tokens.h"
#include "tests/support/qtest_main.h"
#include "tests/support/rules_for_this_disk.h"

using namespace railyard;
using railyard::cluster::AlertEvaluator;
using railyard::cluster::AlertObservation;
using railyard::cluster::AlertPhase;
using railyard::cluster::AlertTransition;

namespace {

alerts::Rules OneRule(alerts::Figure figure, double threshold, uint32_t for_s) {
  alerts::Rules rules;
  alerts::Rule* r = rules.add_rule();
  r->set_name("R");
  r->set_figure(figure);
  r->set_threshold(threshold);
  r->set_for_s(for_s);
  r->set_severity(alerts::WARNING);
  r->set_summary("{node} at {value}");
  return rules;
}

admin::Telemetry ReplicaLagging(double seconds, bool known = true) {
  admin::Telemetry t;
  t.set_state(admin::NODE_SERVING);
  t.mutable_replication()->set_role(admin::DOCSTORE_REPLICA);
  t.mutable_replication()->set_lag_known(known);
  t.mutable_replication()->set_lag_seconds(seconds);
  return t;
}

}  // namespace

class AlertEvaluatorTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void pendingThenFiringThenResolved() {
    AlertEvaluator evaluator(OneRule(alerts::REPLICATION_LAG_SECONDS, 30, 10));
    std::vector<AlertTransition> changes;
    auto at = [&](int64_t s, const admin::Telemetry& t) {
      evaluator.Observe("r1", {s * 1000, true, &t}, &changes);
    };
    at(0, ReplicaLagging(5));
    QVERIFY(changes.empty());
    at(1, ReplicaLagging(40));
    QCOMPARE(changes.size(), size_t{1});
    QCOMPARE(changes[0].phase, AlertPhase::kPending);
    QCOMPARE(changes[0].summary, std::string("r1 at 40 s"));
    at(10, ReplicaLagging(45));  // 9 s: not yet.
    QCOMPARE(changes.size(), size_t{1});
    QCOMPARE(evaluator.Active().size(), size_t{1});
    QCOMPARE(evaluator.Active()[0].phase, AlertPhase::kPending);
    at(11, ReplicaLagging(50));  // 10 s: firing.
    QCOMPARE(changes.size(), size_t{2});
    QCOMPARE(changes[1].phase, AlertPhase::kFiring);
    QCOMPARE(changes[1].unix_ms, int64_t{11000});
    QCOMPARE(evaluator.Active()[0].since_ms, int64_t{1000});
    at(12, ReplicaLagging(0));
    QCOMPARE(changes.size(), size_t{3});
    QCOMPARE(changes[2].phase, AlertPhase::kResolved);
    QVERIFY(evaluator.Active().empty());
  }

  void aPendingAlertThatStopsLeavesNoResolve() {
    AlertEvaluator evaluator(OneRule(alerts::REPLICATION_LAG_SECONDS, 30, 10));
    std::vector<AlertTransition> changes;
    const admin::Telemetry high = ReplicaLagging(40), low = ReplicaLagging(1);
    evaluator.Observe("r1", {0, true, &high}, &changes);
    evaluator.Observe("r1", {5000, true, &low}, &changes);
    QCOMPARE(changes.size(), size_t{1});  // The pending one only.
    QVERIFY(evaluator.Active().empty());
  }

  // A lag that is not known (no live connection to the updater), a node that does not answer:
  // nothing holds, as a series Prometheus no longer has.
  void anUnknownFigureHoldsNothing() {
    AlertEvaluator evaluator(OneRule(alerts::REPLICATION_LAG_SECONDS, 30, 0));
    std::vector<AlertTransition> changes;
    const admin::Telemetry unknown = ReplicaLagging(400, /*known=*/false);
    evaluator.Observe("r1", {0, true, &unknown}, &changes);
    const admin::Telemetry high = ReplicaLagging(400);
    evaluator.Observe("r1", {1000, false, nullptr}, &changes);
    QVERIFY(changes.empty());
    evaluator.Observe("r1", {2000, true, &high}, &changes);
    QCOMPARE(changes.size(), size_t{1});
    QCOMPARE(changes[0].phase, AlertPhase::kFiring);                   // for 0: at once.
    evaluator.Observe("r1", {3000, std::nullopt, nullptr}, &changes);  // Token refused.
    QCOMPARE(changes.back().phase, AlertPhase::kResolved);
  }

  void notAnsweringCountsFromTheFirstMiss() {
    AlertEvaluator evaluator(OneRule(alerts::NODE_NOT_ANSWERING, 0, 3));
    std::vector<AlertTransition> changes;
    const admin::Telemetry t = ReplicaLagging(0);
    evaluator.Observe("n", {0, true, &t}, &changes);
    for (int64_t ms = 1000; ms <= 4000; ms += 1000) evaluator.Observe("n", {ms, false}, &changes);
    QCOMPARE(changes.size(), size_t{2});
    QCOMPARE(changes[1].phase, AlertPhase::kFiring);
    QCOMPARE(changes[1].unix_ms, int64_t{4000});
    evaluator.Forget("n");
    QVERIFY(evaluator.Active().empty());
  }

  // Corruptions count over the last 15 minutes, from the counter's rises (a restart resets it).
  void corruptionsCountTheirRisesForFifteenMinutes() {
    AlertEvaluator evaluator(OneRule(alerts::STORAGE_CORRUPTION, 0, 0));
    std::vector<AlertTransition> changes;
    auto seen = [&](int64_t minute, uint64_t count) {
      admin::Telemetry t;
      t.mutable_storage()->set_corruptions_seen(count);
      evaluator.Observe("n", {minute * 60000, true, &t}, &changes);
    };
    seen(0, 3);  // Seen before this evaluator began: not new.
    QVERIFY(changes.empty());
    seen(1, 4);
    QCOMPARE(changes.size(), size_t{1});
    QCOMPARE(changes[0].value, 1.0);
    seen(2, 0);  // Restarted.
    seen(10, 0);
    QCOMPARE(changes.size(), size_t{1});  // Still within 15 minutes of the rise.
    seen(17, 0);
    QCOMPARE(changes.size(), size_t{2});
    QCOMPARE(changes[1].phase, AlertPhase::kResolved);
  }

  // A counter that rose once and then stays: the alert resolves once the rise is 15 minutes old
  // (it fired for ever before: the unchanged readings kept moving the rise's time forward).
  void aSingleCorruptionLeavesTheWindow() {
    AlertEvaluator evaluator(OneRule(alerts::STORAGE_CORRUPTION, 0, 0));
    std::vector<AlertTransition> changes;
    for (int64_t minute = 0; minute <= 20; ++minute) {
      admin::Telemetry t;
      t.mutable_storage()->set_corruptions_seen(minute == 0 ? 0 : 1);
      evaluator.Observe("n", {minute * 60000, true, &t}, &changes);
    }
    QCOMPARE(changes.size(), size_t{2});
    QCOMPARE(changes[0].phase, AlertPhase::kFiring);
    QCOMPARE(changes[1].phase, AlertPhase::kResolved);
    QCOMPARE(changes[1].unix_ms, int64_t{17 * 60000});
  }

  // The figures from a real node's telemetry: drained, it is a lame duck; its disk is known; it
  // takes writes; its p99 and failed share are not known before it served a request.
  void figuresFromARealNode() {
    QTemporaryDir dir;
    node::NodeOptions options;
    options.name = "alerting";
    options.data_dir = dir.path().toStdString();
    options.io_threads = 1;
    options.worker_threads = 1;
    options.admin.operator_tokens = {testing::kOperatorToken};
    std::unique_ptr<node::Node> node;
    QVERIFY(node::Node::Open(options, &node).ok());
    // The disk rules as this machine's disk allows: they are about the machine, not the node.
    AlertEvaluator evaluator(
        testing::RulesForThisDisk(cluster::DefaultAlertRules(), dir.path().toStdString()));
    std::vector<AlertTransition> changes;
    admin::Telemetry t = node->Snapshot();
    QVERIFY(t.has_disk() && t.disk().size_bytes() > 0);
    QVERIFY(t.storage().writes_refused().empty());
    QVERIFY(!cluster::AlertFigure(alerts::SERVER_P99_MS, {0, true, &t}));
    QVERIFY(!cluster::AlertFigure(alerts::FAILED_SHARE, {0, true, &t}));
    QCOMPARE(*cluster::AlertFigure(alerts::NODE_LAME_DUCK, {0, true, &t}), 0.0);
    evaluator.Observe("alerting", {0, true, &t}, &changes);
    cluster::AdminClient op(node->admin_endpoint(), testing::kOperatorToken, "tst");
    QVERIFY(op.Connect(std::chrono::seconds(5)).ok());
    admin::AdminResponse response;
    QVERIFY(op.Drain(&response).ok());
    t = node->Snapshot();
    QCOMPARE(*cluster::AlertFigure(alerts::NODE_LAME_DUCK, {1000, true, &t}), 1.0);
    evaluator.Observe("alerting", {1000, true, &t}, &changes);
    // RailyardLameDuckTooLong: pending (its for is 10 minutes), nothing else.
    QCOMPARE(changes.size(), size_t{1});
    QCOMPARE(changes[0].rule, std::string("RailyardLameDuckTooLong"));
    QCOMPARE(changes[0].phase, AlertPhase::kPending);
    node->Shutdown(std::chrono::milliseconds(0));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(AlertEvaluatorTest)
#include "tst_alert_evaluator.moc"
