// SPDX-License-Identifier: Apache-2.0
// Operator actions against a real node on loopback: drain, undrain, flush, compact (all and a
// selected run), refusal with a viewer token, read-only mode, confirmation, and the audit log.
#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QColor>
#include <QComboBox>
#include <QDateTime>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "tests/support/qtest_main.h"
#include "tests/ui/screenshot.h"
#include "tests/ui/storage_test_node.h"
#include "tests/ui/ui_test_support.h"
#include "ui/actions/action_controller.h"
#include "ui/actions/audit_log.h"
#include "ui/actions/audit_log_model.h"
#include "ui/actions/audit_log_view.h"
#include "ui/views/compaction_view.h"
#include "ui/views/index_stack_widget.h"

using namespace railyard;
using namespace railyard::ui;
using railyard::ui::testing::kOperatorToken;
using railyard::ui::testing::kViewerToken;
using railyard::ui::testing::SaveScreenshot;
using railyard::ui::testing::StorageTestNode;
using railyard::ui::testing::WaitFor;

namespace {

// A real node, the console's state of it, and a controller with an operator token, a temporary
// audit log, and confirmations and results recorded instead of shown.
struct Fixture {
  StorageTestNode node;
  ClusterState state;
  QWidget window;
  QTemporaryDir dir;
  std::unique_ptr<ActionController> actions;
  int index = -1;
  QString token = kOperatorToken;
  QStringList confirmations;
  bool confirm = true;
  struct Result {
    QString title, text;
    bool ok;
  };
  QVector<Result> results;

  bool Start() {
    if (!node.Start()) return false;
    index = node.Feed(&state);
    actions = std::make_unique<ActionController>(&state, &window);
    actions->SetTokenProvider([this](int) { return token; });
    actions->SetAuditPath(dir.filePath("audit.sqlite"));
    actions->SetConfirmer([this](const QString& title, const QString& text) {
      confirmations << title + "\n" + text;
      return confirm;
    });
    actions->SetResultPresenter([this](const QString& title, const QString& text, bool ok) {
      results.push_back({title, text, ok});
    });
    return index >= 0;
  }

  // Runs `act` and waits for its ActionFinished; returns the event.
  admin::CommandEvent RunAndWait(const std::function<void()>& act) {
    QSignalSpy finished(actions.get(), &ActionController::ActionFinished);
    act();
    if (!finished.wait(15000) || finished.isEmpty()) return {};
    node.Feed(&state);
    return finished[0][0].value<admin::CommandEvent>();
  }

  QVector<AuditEntry> Audit(const AuditQuery& query = {}) {
    return actions->audit_log() ? actions->audit_log()->Search(query) : QVector<AuditEntry>{};
  }

  QVector<quint64> IndexIds() {
    QVector<quint64> ids;
    for (const admin::IndexInfo& info : state.Node(index).telemetry->storage().indexes()) {
      ids << info.id();
    }
    return ids;
  }
};

// Telemetry frames (at `now`) of "up", the updater, and replicas "r1" and "r2", serving, on
// 127.0.0.1:7001 to 7003.
void AddUpdaterAndTwoReplicas(ClusterState& state, qint64 now) {
  const char* names[] = {"up", "r1", "r2"};
  for (int i = 0; i < 3; ++i) {
    const int node = state.AddNode(QString("127.0.0.1:%1").arg(7001 + i), names[i]);
    auto t = railyard::ui::testing::MakeTelemetry(names[i], now);
    t->mutable_replication()->set_role(i == 0 ? admin::DOCSTORE_UPDATER : admin::DOCSTORE_REPLICA);
    railyard::ui::testing::ApplySnapshot(state, node, t, now);
  }
}

}  // namespace

class ActionsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Figures are checked as an English locale writes them, whatever the machine's.
  void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

  void drainAndUndrainARealNode() {
    Fixture f;
    QVERIFY2(f.Start(), qPrintable(f.node.error()));
    QVERIFY(!f.actions->ReadOnly());
    QVERIFY(f.actions->CanAct(f.index));
    QCOMPARE(f.state.Node(f.index).health, NodeHealth::kServing);

    QSignalSpy started(f.actions.get(), &ActionController::ActionStarted);
    const admin::CommandEvent drained = f.RunAndWait([&] {
      f.actions->Drain(f.index);
      // Running on a worker: the GUI thread is free, and the node is busy for more actions.
      QVERIFY(f.actions->Busy(f.index));
      QVERIFY(!f.actions->CanAct(f.index));
    });
    QCOMPARE(started.count(), 1);
    QCOMPARE(drained.command(), std::string("drain"));
    QCOMPARE(drained.result(), std::string("OK"));
    QVERIFY(QString::fromStdString(drained.detail()).contains(f.node.adminAddress()));
    QVERIFY(QString::fromStdString(drained.by()).contains("railyard console"));
    QCOMPARE(f.node.node().Snapshot().state(), admin::NODE_LAME_DUCK);
    QCOMPARE(f.state.Node(f.index).health, NodeHealth::kLameDuck);
    QVERIFY(!f.actions->Busy(f.index));

    // The question named the node, its address and the effect.
    QCOMPARE(f.confirmations.size(), 1);
    QVERIFY(f.confirmations[0].contains(
        QString("Drain node1 (%1)? It stops taking new requests; clients move to other nodes.")
            .arg(f.node.adminAddress())));
    QCOMPARE(f.results.size(), 1);
    QVERIFY(f.results[0].ok);

    const admin::CommandEvent undrained = f.RunAndWait([&] { f.actions->Undrain(f.index); });
    QCOMPARE(undrained.result(), std::string("OK"));
    QCOMPARE(f.node.node().Snapshot().state(), admin::NODE_SERVING);
    QCOMPARE(f.state.Node(f.index).health, NodeHealth::kServing);

    // Both are in the audit log, newest first, with who, where and what came of it.
    const QVector<AuditEntry> rows = f.Audit();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0].action, QString("undrain"));
    QCOMPARE(rows[1].action, QString("drain"));
    QCOMPARE(rows[1].node_name, QString("node1"));
    QCOMPARE(rows[1].node_address, f.node.adminAddress());
    QCOMPARE(rows[1].user, AuditLog::CurrentUser());
    QCOMPARE(rows[1].result, QString("OK"));
    QVERIFY(rows[1].ok);
    // The node keeps its own record of the commands too.
    QVERIFY(f.state.Node(f.index).telemetry->recent_commands_size() >= 2);
  }

  // Before a drain, the question says what it costs: an updater's writes fail, the last serving
  // replica's reads all fall on the updater. Told from the telemetry the console shows.
  void drainWarnsOfTheUpdaterAndTheLastServingReplica() {
    ClusterState state;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    AddUpdaterAndTwoReplicas(state, now);
    ActionController actions(&state, nullptr);
    QVERIFY(actions.ConfirmationText(ActionController::Action::kDrain, 0)
                .contains("It is the updater: writes have no other node to go to"));
    QVERIFY(actions.DrainWarning(1).isEmpty());  // r2 serves.
    // r2 drained: r1 is the last replica that serves.
    auto lame = railyard::ui::testing::MakeTelemetry("r2", now + 100);
    lame->set_state(admin::NODE_LAME_DUCK);
    lame->mutable_replication()->set_role(admin::DOCSTORE_REPLICA);
    railyard::ui::testing::ApplySnapshot(state, 2, lame, now + 100);
    QVERIFY(actions.ConfirmationText(ActionController::Action::kDrain, 1)
                .contains("It is the last replica that serves: every read falls on the updater."));
    QVERIFY(actions.ConfirmationText(ActionController::Action::kUndrain, 1).indexOf("last") < 0);
  }

  // Several nodes selected: one question naming each (with the warnings of the whole set), then
  // each is drained, audited and shown as its own command; undrain the same; the actions say how
  // many nodes they act on.
  void drainAndUndrainSeveralNodesAtOnce() {
    Fixture f;
    QVERIFY2(f.Start(), qPrintable(f.node.error()));
    StorageTestNode second;
    StorageTestNode::Options options;
    options.name = "node2";
    QVERIFY2(second.Start(options), qPrintable(second.error()));
    const int other = second.Feed(&f.state);
    QVERIFY(other >= 0 && other != f.index);
    f.actions->SetCurrentNode(f.index);
    QCOMPARE(f.actions->DrainAction()->text(), QString("&Drain"));
    f.actions->SetSelectedNodes({other, f.index});
    QCOMPARE(f.actions->DrainTargets(),
             (QVector<int>{std::min(f.index, other), std::max(f.index, other)}));
    QCOMPARE(f.actions->DrainAction()->text(), QString("&Drain 2 nodes"));
    QVERIFY(f.actions->DrainAction()->isEnabled());

    QSignalSpy finished(f.actions.get(), &ActionController::ActionFinished);
    f.actions->DrainAction()->trigger();
    QCOMPARE(f.confirmations.size(), 1);  // One question for both.
    QVERIFY2(f.confirmations[0].startsWith("Drain 2 nodes?"), qPrintable(f.confirmations[0]));
    QVERIFY2(f.confirmations[0].contains("node1 (" + f.node.adminAddress() + ")") &&
                 f.confirmations[0].contains("node2 (" + second.adminAddress() + ")"),
             qPrintable(f.confirmations[0]));
    QVERIFY(WaitFor([&] { return finished.size() == 2; }));
    for (const QList<QVariant>& event : finished) {
      QCOMPARE(event[0].value<admin::CommandEvent>().result(), std::string("OK"));
    }
    QCOMPARE(f.node.Telemetry()->state(), admin::NODE_LAME_DUCK);
    QCOMPARE(second.Telemetry()->state(), admin::NODE_LAME_DUCK);
    QCOMPARE(f.Audit({"", "", "drain", 10}).size(), 2);

    finished.clear();
    f.confirmations.clear();
    f.actions->UndrainAction()->trigger();
    QCOMPARE(f.confirmations.size(), 1);
    QVERIFY(WaitFor([&] { return finished.size() == 2; }));
    QCOMPARE(f.node.Telemetry()->state(), admin::NODE_SERVING);
    QCOMPARE(second.Telemetry()->state(), admin::NODE_SERVING);

    // One of them without a token: nothing at all is done, and the reason names it.
    f.token.clear();
    f.actions->TokensChanged();
    QVERIFY(!f.actions->DrainAction()->isEnabled());
    f.confirmations.clear();
    f.results.clear();
    f.actions->DrainNodes(f.actions->DrainTargets());
    QVERIFY(f.confirmations.isEmpty());
    QCOMPARE(f.results.size(), 1);
    QVERIFY2(f.results[0].text.startsWith("Nothing was done"), qPrintable(f.results[0].text));
    QCOMPARE(f.node.Telemetry()->state(), admin::NODE_SERVING);

    // Back to one node: the actions act on it alone.
    f.actions->SetSelectedNodes({f.index});
    QCOMPARE(f.actions->DrainAction()->text(), QString("&Drain"));
  }

  // The warnings of draining several at once: the updater among them, or every serving replica.
  void drainingSeveralWarnsOfWhatIsLeft() {
    ClusterState state;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    AddUpdaterAndTwoReplicas(state, now);
    ActionController actions(&state, nullptr);
    QVERIFY(actions.DrainWarning(QVector<int>{0, 1}).contains("up is the updater"));
    QVERIFY(actions.DrainWarning(QVector<int>{0, 1}).indexOf("last replicas") < 0);  // r2 serves.
    QVERIFY(
        actions.DrainWarning(QVector<int>{1, 2})
            .contains("They are the last replicas that serve: every read falls on the updater."));
    QVERIFY(actions.DrainWarning(QVector<int>{0, 1, 2}).contains("no node is left to read from"));
    QVERIFY(actions.ConfirmationText(ActionController::Action::kUndrain, QVector<int>{1, 2})
                .startsWith("Undrain 2 nodes: r1 (127.0.0.1:7002), r2 (127.0.0.1:7003)?"));
  }

  void flushWritesTheInMemoryIndex() {
    Fixture f;
    QVERIFY2(f.Start(), qPrintable(f.node.error()));
    QVERIFY(f.node.Put(1, 200));
    f.node.Feed(&f.state);
    QCOMPARE(f.state.Node(f.index).telemetry->storage().memtable_entries(), uint64_t{200});
    QCOMPARE(f.state.Node(f.index).telemetry->storage().indexes_size(), 0);
    const admin::CommandEvent event = f.RunAndWait([&] { f.actions->Flush(f.index); });
    QCOMPARE(event.result(), std::string("OK"));
    QVERIFY(f.confirmations[0].contains("(200 entries)"));
    const admin::StorageStats& s = f.state.Node(f.index).telemetry->storage();
    QCOMPARE(s.memtable_entries(), uint64_t{0});
    QCOMPARE(s.indexes_size(), 1);
    QCOMPARE(s.indexes(0).entries(), uint64_t{200});
    QCOMPARE(f.Audit({"", "node1", "flush", 10}).size(), 1);
  }

  void compactASelectedRunThenAll() {
    Fixture f;
    QVERIFY2(f.Start(), qPrintable(f.node.error()));
    // The seed's rule leaves three indexes: 250, 1000 and 2000 entries.
    QVERIFY(f.node.Put(1, 3000));
    QVERIFY(f.node.Put(10001, 250));
    QVERIFY(f.node.node().store().Flush().ok());
    f.node.Feed(&f.state);
    const QVector<quint64> ids = f.IndexIds();
    QCOMPARE(ids.size(), 3);

    // A set with a gap is refused before anything is sent.
    f.actions->Compact(f.index, {ids[0], ids[2]});
    QCOMPARE(f.results.size(), 1);
    QVERIFY(!f.results[0].ok);
    QVERIFY(f.results[0].text.contains("not a run of adjacent"));
    QVERIFY(f.confirmations.isEmpty());
    QVERIFY(f.Audit().isEmpty());

    // Chosen in the compaction view: the two newest, click and shift-click, then the button.
    CompactionView view(&f.state, &f.window);
    QAbstractItemModelTester tester(view.Timeline()->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.resize(800, 600);
    view.SetNode(f.index);
    f.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&f.window));
    QObject::connect(&view, &CompactionView::CompactRequested, f.actions.get(),
                     &ActionController::Compact);
    QObject::connect(f.actions.get(), &ActionController::AvailabilityChanged, &view,
                     [&] { view.SetActionsEnabled(f.actions->CanAct(f.index)); });
    IndexStackWidget* stack = view.IndexStack();
    QTest::mouseClick(stack, Qt::LeftButton, {}, stack->BarRect(0).center());
    QTest::mouseClick(stack, Qt::LeftButton, Qt::ShiftModifier, stack->BarRect(1).center());
    const admin::CommandEvent selected =
        f.RunAndWait([&] { QTest::mouseClick(view.CompactSelectedButton(), Qt::LeftButton); });
    QCOMPARE(selected.result(), std::string("OK"));
    QVERIFY(f.confirmations.last().contains(
        QString("merges indexes #%1, #%2 (1,250 entries)").arg(ids[0]).arg(ids[1])));
    const QVector<quint64> after = f.IndexIds();
    QCOMPARE(after.size(), 2);
    QCOMPARE(after[1], ids[2]);  // The oldest is untouched.
    QVERIFY(!after.contains(ids[0]) && !after.contains(ids[1]));
    QCOMPARE(view.Model()->Indexes().size(), 2);
    QVERIFY(view.Model()->Compactions().front().manual);
    QVERIFY(
        f.Audit().front().detail.startsWith(QString("indexes #%1, #%2").arg(ids[0]).arg(ids[1])));

    // No current node: the action is disabled and triggering it starts nothing.
    QSignalSpy started(f.actions.get(), &ActionController::ActionStarted);
    QVERIFY(!f.actions->CompactAllAction()->isEnabled());
    f.actions->CompactAllAction()->trigger();
    QCOMPARE(started.count(), 0);
    QVERIFY(!f.actions->Busy(f.index));
    f.actions->SetCurrentNode(f.index);
    QVERIFY(f.actions->CompactAllAction()->isEnabled());
    // A flush while the confirmation is open: the index it adds was not counted, so it is not
    // merged (C16: the console asked about "all 3" and merged 4).
    f.actions->SetConfirmer([&](const QString& title, const QString& text) {
      f.confirmations << title + "\n" + text;
      return f.node.Put(20001, 100) && f.node.node().store().Flush().ok();
    });
    const admin::CommandEvent all2 =
        f.RunAndWait([&] { f.actions->CompactAllAction()->trigger(); });
    QCOMPARE(all2.result(), std::string("OK"));
    QVERIFY2(f.confirmations.last().contains("all 2 on-disk index(es)"),
             qPrintable(f.confirmations.last()));
    const admin::StorageStats& storage = f.state.Node(f.index).telemetry->storage();
    QCOMPARE(storage.indexes_size(), 2);  // The two it counted, merged, and the new one.
    QCOMPARE(storage.indexes(0).entries(), uint64_t{100});
    QCOMPARE(storage.indexes(1).entries(), uint64_t{3250});
    QVERIFY2(f.Audit().front().detail.startsWith(
                 QString("indexes #%1, #%2").arg(after[0]).arg(after[1])),
             qPrintable(f.Audit().front().detail));
  }

  void viewerTokenIsRefusedAndAudited() {
    Fixture f;
    f.token = kViewerToken;
    QVERIFY2(f.Start(), qPrintable(f.node.error()));
    QVERIFY(f.node.Put(1, 100));
    const admin::CommandEvent drained = f.RunAndWait([&] { f.actions->Drain(f.index); });
    QVERIFY2(QString::fromStdString(drained.result()).startsWith("refused: "),
             drained.result().c_str());
    QVERIFY(QString::fromStdString(drained.result()).contains("operator token"));
    QCOMPARE(f.node.node().Snapshot().state(), admin::NODE_SERVING);  // Unchanged.
    const admin::CommandEvent flushed = f.RunAndWait([&] { f.actions->Flush(f.index); });
    QVERIFY(QString::fromStdString(flushed.result()).startsWith("refused: "));
    QCOMPARE(f.node.node().Snapshot().storage().memtable_entries(), uint64_t{100});

    QCOMPARE(f.results.size(), 2);
    QVERIFY(!f.results[0].ok);
    QVERIFY(f.results[0].text.contains("refused"));
    const QVector<AuditEntry> rows = f.Audit();
    QCOMPARE(rows.size(), 2);
    for (const AuditEntry& row : rows) {
      QVERIFY(!row.ok);
      QVERIFY(row.result.startsWith("refused: "));
    }
    QCOMPARE(f.Audit({"refused", "", "drain", 10}).size(), 1);

    // A wrong token is refused by the node too.
    f.token = "not-a-token";
    const admin::CommandEvent wrong = f.RunAndWait([&] { f.actions->Drain(f.index); });
    QVERIFY(QString::fromStdString(wrong.result()).startsWith("refused: UNAUTHENTICATED"));
    QCOMPARE(f.node.node().Snapshot().state(), admin::NODE_SERVING);
  }

  void readOnlyDisablesEveryAction() {
    Fixture f;
    QVERIFY2(f.Start(), qPrintable(f.node.error()));
    f.actions->SetCurrentNode(f.index);
    QVERIFY(f.actions->DrainAction()->isEnabled());
    QSignalSpy availability(f.actions.get(), &ActionController::AvailabilityChanged);
    f.actions->SetReadOnly(true);
    QCOMPARE(availability.count(), 1);
    QVERIFY(f.actions->ReadOnly());
    QVERIFY(!f.actions->CanAct(f.index));
    QVERIFY(f.actions->DisabledReason(f.index).contains("read-only"));
    for (QAction* a : {f.actions->DrainAction(), f.actions->UndrainAction(),
                       f.actions->FlushAction(), f.actions->CompactAllAction()}) {
      QVERIFY(!a->isEnabled());
    }
    QSignalSpy finished(f.actions.get(), &ActionController::ActionFinished);
    f.actions->Drain(f.index);
    f.actions->Compact(f.index, {});
    QTest::qWait(200);
    QCOMPARE(finished.count(), 0);
    QVERIFY(f.confirmations.isEmpty());
    QCOMPARE(f.node.node().Snapshot().state(), admin::NODE_SERVING);
    QVERIFY(f.Audit().isEmpty());
    QVERIFY(!f.results.isEmpty() && f.results.last().text.contains("read-only"));

    // Without a token provider the console is read-only too; an empty token disables one node.
    ActionController bare(&f.state, &f.window);
    QVERIFY(bare.ReadOnly());
    f.actions->SetReadOnly(false);
    f.token.clear();
    QVERIFY(!f.actions->ReadOnly());
    QVERIFY(!f.actions->CanAct(f.index));
    QVERIFY(f.actions->DisabledReason(f.index).contains("No operator token"));
    f.actions->TokensChanged();
    QVERIFY(!f.actions->DrainAction()->isEnabled());
  }

  void cancelledConfirmationSendsNothing() {
    Fixture f;
    QVERIFY2(f.Start(), qPrintable(f.node.error()));
    f.confirm = false;
    QSignalSpy started(f.actions.get(), &ActionController::ActionStarted);
    f.actions->Drain(f.index);
    QCOMPARE(f.confirmations.size(), 1);
    QCOMPARE(started.count(), 0);
    QVERIFY(!f.actions->Busy(f.index));
    QCOMPARE(f.node.node().Snapshot().state(), admin::NODE_SERVING);
    QVERIFY(f.Audit().isEmpty());
  }

  void defaultDialogsAskAndShowOnlyFailures() {
    // No confirmer or presenter seams: the real message boxes, answered by clicking.
    StorageTestNode node;
    QVERIFY2(node.Start(), qPrintable(node.error()));
    ClusterState state;
    const int index = node.Feed(&state);
    QWidget window;
    window.show();
    QTemporaryDir dir;
    ActionController actions(&state, &window);
    QString token = kOperatorToken;
    actions.SetTokenProvider([&](int) { return token; });
    actions.SetAuditPath(dir.filePath("audit.sqlite"));
    QString asked;
    const auto answer_yes = [&] {
      auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
      if (!box) return;
      asked = box->text();
      box->button(QMessageBox::Yes)->click();
    };
    QTimer::singleShot(50, answer_yes);
    QSignalSpy finished(&actions, &ActionController::ActionFinished);
    QSignalSpy succeeded(&actions, &ActionController::Succeeded);
    actions.Drain(index);  // Blocks in the question until the timer clicks Yes.
    QVERIFY(asked.startsWith("Drain node1 ("));
    QVERIFY(finished.wait(15000));
    QCOMPARE(node.node().Snapshot().state(), admin::NODE_LAME_DUCK);
    // A success is announced, not shown in a box to click away; the progress dialog is gone.
    QCOMPARE(succeeded.count(), 1);
    const QString told = succeeded[0][0].toString();
    QVERIFY2(told.contains("drain on node1") && told.contains("done"), qPrintable(told));
    QVERIFY(WaitFor([&] {
      for (QProgressDialog* p : window.findChildren<QProgressDialog*>()) {
        if (p->isVisible()) return false;
      }
      return true;
    }));
    for (QMessageBox* box : window.findChildren<QMessageBox*>()) {
      QVERIFY2(!box->isVisible(), qPrintable(box->text()));
    }
    QCOMPARE(actions.audit_log()->Search({}).size(), 1);

    // A failure still gets a (non-modal) box with the reason.
    token = "not-a-token";
    QTimer::singleShot(50, answer_yes);
    actions.Undrain(index);
    QVERIFY(finished.wait(15000));
    QMessageBox* result = nullptr;
    QVERIFY(WaitFor([&] {
      for (QMessageBox* box : window.findChildren<QMessageBox*>()) {
        if (box->isVisible() && box->text().contains("undrain on node1")) result = box;
      }
      return result != nullptr;
    }));
    QVERIFY2(result->text().contains("refused"), qPrintable(result->text()));
    QVERIFY(!result->isModal());
    QCOMPARE(succeeded.count(), 1);
  }

  void auditLogPersistsAndIsSearchable() {
    QTemporaryDir dir;
    const QString path = dir.filePath("nested/folder/audit.sqlite");
    QString error;
    {
      AuditLog log;
      QVERIFY2(log.Open(path, &error), qPrintable(error));
      const char* actions[] = {"drain", "undrain", "compact", "flush"};
      for (int i = 0; i < 8; ++i) {
        AuditEntry e;
        e.unix_ms = 1700000000000 + i * 1000;
        e.user = "alice";
        e.node_name = QString("node%1").arg(i % 2 + 1);
        e.node_address = QString("127.0.0.1:%1").arg(7001 + i % 2);
        e.action = actions[i % 4];
        e.detail = i == 6 ? "indexes #12, #13 50%_done" : "";
        e.result = i == 5 ? "refused: FAILED_PRECONDITION: needs an operator token" : "OK";
        e.ok = i != 5;
        QVERIFY2(log.Append(&e, &error), qPrintable(error));
        QVERIFY(e.id > 0);
      }
    }
    AuditLog log;
    QVERIFY(log.Open(path, &error));  // Reopened: the rows are still there.
    QCOMPARE(log.Search({}).size(), 8);
    QCOMPARE(log.Search({}).front().unix_ms, qint64{1700000007000});  // Newest first.
    QCOMPARE(log.Search({"", "node1", "", 100}).size(), 4);
    QCOMPARE(log.Search({"", "127.0.0.1:7002", "", 100}).size(), 4);
    QCOMPARE(log.Search({"", "", "compact", 100}).size(), 2);
    QCOMPARE(log.Search({"", "node1", "compact", 100}).size(), 2);
    QCOMPARE(log.Search({"REFUSED", "", "", 100}).size(), 1);  // Case-insensitive.
    QCOMPARE(log.Search({"#12", "", "", 100}).size(), 1);
    QCOMPARE(log.Search({"50%_", "", "", 100}).size(), 1);  // Wildcards are literal.
    QCOMPARE(log.Search({"5%", "", "", 100}).size(), 0);
    QCOMPARE(log.Search({"", "", "", 3}).size(), 3);
    QCOMPARE(log.Nodes(), (QStringList{"node1", "node2"}));
    QCOMPARE(log.Actions(), (QStringList{"compact", "drain", "flush", "undrain"}));

    AuditLogView view(&log);
    QAbstractItemModel* table = view.Table()->model();
    QAbstractItemModelTester tester(table, QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.resize(900, 400);
    view.show();
    QCOMPARE(table->rowCount(), 8);
    QCOMPARE(table->columnCount(), 7);
    QCOMPARE(table->headerData(6, Qt::Horizontal).toString(), QString("Result"));
    QCOMPARE(table->index(0, 0).data().toString(),
             QDateTime::fromMSecsSinceEpoch(1700000007000).toString("yyyy-MM-dd hh:mm:ss"));
    view.SearchBox()->setText("refused");
    QCOMPARE(table->rowCount(), 1);
    QCOMPARE(table->index(0, 4).data().toString(), QString("undrain"));
    QCOMPARE(table->index(0, 6).data(Qt::ForegroundRole).value<QColor>(), QColor(0xc6, 0x28, 0x28));
    QVERIFY(!table->index(0, 5).data(Qt::ForegroundRole).isValid());
    view.SearchBox()->clear();
    QVERIFY(!table->index(0, 6).data(Qt::ForegroundRole).isValid());  // OK: no colour.
    view.ActionFilter()->setCurrentIndex(view.ActionFilter()->findData("drain"));
    QCOMPARE(table->rowCount(), 2);
    view.NodeFilter()->setCurrentIndex(view.NodeFilter()->findData("node2"));
    QCOMPARE(table->rowCount(), 0);
    view.ActionFilter()->setCurrentIndex(0);
    QCOMPARE(table->rowCount(), 4);
    SaveScreenshot(&view, "audit_log_view.png");

    // A file that is not a database is refused with a clear error.
    const QString junk = dir.filePath("junk.sqlite");
    QFile file(junk);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray(4096, 'x'));
    file.close();
    AuditLog bad;
    QVERIFY(!bad.Open(junk, &error));
    QVERIFY2(error.contains("not a usable audit log"), qPrintable(error));
    AuditEntry e;
    QVERIFY(!bad.Append(&e, &error));
  }

  void auditModelInsertsAndRemovesRowsInsteadOfResetting() {
    QTemporaryDir dir;
    AuditLog log;
    QString error;
    QVERIFY2(log.Open(dir.filePath("audit.sqlite"), &error), qPrintable(error));
    const auto append = [&](qint64 unix_ms, const QString& node, const QString& action) {
      AuditEntry e;
      e.unix_ms = unix_ms;
      e.user = "bob";
      e.node_name = node;
      e.node_address = "127.0.0.1:7001";
      e.action = action;
      e.result = "OK";
      e.ok = true;
      return log.Append(&e, &error);
    };
    QVERIFY(append(1000, "node1", "drain"));
    QVERIFY(append(3000, "node2", "flush"));
    AuditLogModel model(&log);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 2);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);

    // A newer entry lands on top, an older one (another console's clock) between the two.
    QVERIFY(append(4000, "node1", "undrain"));
    QVERIFY(append(2000, "node2", "compact"));
    model.Refresh();
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(inserted.count(), 2);
    QCOMPARE(inserted[0][1].toInt(), 0);
    QCOMPARE(inserted[0][2].toInt(), 0);
    QCOMPARE(inserted[1][1].toInt(), 2);
    QCOMPARE(inserted[1][2].toInt(), 2);
    QStringList actions;
    for (int row = 0; row < model.rowCount(); ++row) {
      actions << model.index(row, AuditLogModel::kAction).data().toString();
    }
    QCOMPARE(actions, (QStringList{"undrain", "flush", "compact", "drain"}));

    // Nothing new: nothing signalled.
    model.Refresh();
    QCOMPARE(inserted.count(), 2);
    QCOMPARE(removed.count(), 0);

    // A filter removes what it does not match, and gives it back when lifted.
    model.SetQuery({"", "node1", "", 100});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(removed.count(), 1);  // Flush and compact, as one run.
    QCOMPARE(removed[0][1].toInt(), 1);
    QCOMPARE(removed[0][2].toInt(), 2);
    model.SetQuery({});
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(inserted.count(), 3);
    QCOMPARE(inserted[2][1].toInt(), 1);
    QCOMPARE(inserted[2][2].toInt(), 2);
    QCOMPARE(model.index(3, AuditLogModel::kAction).data().toString(), QString("drain"));
    // A limit drops the oldest.
    model.SetQuery({"", "", "", 3});
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(removed.last()[1].toInt(), 3);
    QCOMPARE(reset.count(), 0);
    QVERIFY(model.ErrorString().isEmpty());
  }

  void controllerAuditViewShowsNewActions() {
    Fixture f;
    QVERIFY2(f.Start(), qPrintable(f.node.error()));
    std::unique_ptr<QWidget> widget(f.actions->CreateAuditLogView(&f.window));
    auto* view = qobject_cast<AuditLogView*>(widget.get());
    QVERIFY(view);
    QAbstractItemModel* table = view->Table()->model();
    QAbstractItemModelTester tester(table, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(table->rowCount(), 0);
    f.RunAndWait([&] { f.actions->Drain(f.index); });
    QCOMPARE(table->rowCount(), 1);
    QCOMPARE(table->index(0, 2).data().toString(), QString("node1"));
    // A console restarted on the same file sees the row.
    ActionController again(&f.state, &f.window);
    again.SetAuditPath(f.actions->AuditPath());
    QCOMPARE(again.audit_log()->Search({}).size(), 1);
  }

  // C9: drain, flush and compact were offered on a client's row (and refused by it with a
  // confusing "needs an operator token"), and on a node that had refused the token.
  void actionsAreOfferedOnlyOnServersThatAcceptTheToken() {
    Fixture f;
    QVERIFY2(f.Start(), qPrintable(f.node.error()));
    f.actions->SetCurrentNode(f.index);
    QVERIFY(f.actions->DrainAction()->isEnabled());

    const int client = f.state.AddNode("127.0.0.1:9", "load-client");
    auto calls = std::make_shared<admin::Telemetry>();
    calls->set_node("load-client");
    calls->set_role(admin::ROLE_CLIENT);
    f.state.ApplyFrame({{client, calls}}, QDateTime::currentMSecsSinceEpoch());
    QVERIFY(!f.actions->CanAct(client));
    QVERIFY2(f.actions->DisabledReason(client).contains("is a client"),
             qPrintable(f.actions->DisabledReason(client)));
    f.actions->SetCurrentNode(client);
    QVERIFY(!f.actions->DrainAction()->isEnabled());

    f.actions->SetCurrentNode(f.index);
    QVERIFY(f.actions->DrainAction()->isEnabled());
    ClusterState::Update refused{f.index, nullptr, "UNAUTHENTICATED: token not accepted"};
    refused.token_refused = true;
    f.state.ApplyFrame({refused}, QDateTime::currentMSecsSinceEpoch());
    QCOMPARE(f.state.Node(f.index).health, NodeHealth::kTokenRefused);
    QVERIFY(!f.actions->DrainAction()->isEnabled());  // Followed the frame, not only a click.
    QVERIFY2(f.actions->DisabledReason(f.index).contains("refused the token"),
             qPrintable(f.actions->DisabledReason(f.index)));
  }
};

RAILYARD_QTEST_MAIN(ActionsTest)
#include "tst_actions.moc"
