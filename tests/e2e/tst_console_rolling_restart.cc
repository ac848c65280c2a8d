// SPDX-License-Identifier: Apache-2.0
// The console's Node > Rolling restart on a lab (hosts in network namespaces as root, else on
// loopback addresses) through the lab's own cluster file, whose restart_command the dialog starts
// with: a failing command stops the run at its node and says why; two replicas selected in the
// Overview are offered (the updater unticked), restarted one at a time (their PIDs change, the
// updater's does not) while the progress shows each step; Stop ends a run before its next node;
// every run is in the audit log. A screenshot of a run in progress is kept
// (build/<preset>/screenshots/rolling_restart.png).
#include <QApplication>
#include <QDir>
#include <QItemSelectionModel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "core/cluster/admin_client.h"
#include "tests/e2e/lab_support.h"
#include "tests/e2e/replication_support.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"
#include "ui/actions/action_controller.h"
#include "ui/models/overview_model.h"
#include "ui/session/session.h"
#include "ui/shell/main_window.h"
#include "ui/shell/rolling_restart_dialog.h"
#include "ui/views/overview_view.h"

using railyard::testing::ScreenshotDir;

using namespace railyard;
using namespace railyard::e2e;
using railyard::ui::RollingRestartDialog;

class ConsoleRollingRestartTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  LabFixture lab_;
  std::unique_ptr<ui::MainWindow> window_;

  int Pid(const std::string& host) { return lab_.Reload() ? lab_.Host(host).pid() : -1; }

  // The Overview's rows of these nodes selected by the mouse: a click on the first, Ctrl and a
  // click on each other, as an operator does.
  bool SelectInOverview(const QStringList& names) {
    QTableView* table = window_->overview_view()->Table();
    bool first = true;
    int selected = 0;
    for (int row = 0; row < table->model()->rowCount(); ++row) {
      const QModelIndex name = table->model()->index(row, ui::OverviewModel::kName);
      if (!names.contains(name.data().toString())) continue;
      QTest::mouseClick(table->viewport(), Qt::LeftButton,
                        first ? Qt::KeyboardModifiers() : Qt::ControlModifier,
                        table->visualRect(name).center());
      first = false;
      ++selected;
    }
    return selected == names.size() &&
           table->selectionModel()->selectedRows().size() == names.size();
  }

  bool Undrain(const std::string& host) {
    cluster::AdminClient admin(lab_.Admin(host), lab_.operator_token());
    admin::AdminResponse response;
    return admin.Connect(std::chrono::seconds(5)).ok() && admin.Undrain(&response).ok();
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QVERIFY(lab_.Up(2, {"--memtable-entries", "500"}));
    QVERIFY(WaitFor([&] { return lab_.CaughtUp("replica1", 0) && lab_.CaughtUp("replica2", 0); }));
    ui::MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir_.filePath("audit.sqlite");
    window_ = std::make_unique<ui::MainWindow>(options);
    window_->resize(1280, 800);
    window_->show();
    QVERIFY(!window_->RollingRestartAction()->isEnabled());  // Nothing live yet.
    QString error;
    QVERIFY2(window_->session()->OpenClusterFile(
                 lab_.ClusterFile(), QString::fromStdString(lab_.operator_token()), &error),
             qPrintable(error));
    // The lab's cluster file says how to restart one of its hosts.
    QVERIFY2(window_->session()->RestartCommand().contains(" lab restart {name} --dir "),
             qPrintable(window_->session()->RestartCommand()));
    QVERIFY(QTest::qWaitFor(
        [&] {
          return window_->RollingRestartAction()->isEnabled() &&
                 window_->session()->CopyTargets().size() == 3 &&
                 window_->overview_view()->Model()->rowCount() == 3;
        },
        30000));
    // Every node's role known, so that the dialog orders them.
    QVERIFY(QTest::qWaitFor(
        [&] {
          int known = 0;
          for (int i = 0; i < window_->session()->State()->NodeCount(); ++i) {
            const auto& t = window_->session()->State()->Node(i).telemetry;
            known += t && t->has_replication() && t->replication().role() != admin::DocstoreRole{};
          }
          return known == 3;
        },
        30000));
  }

  void aFailingCommandStopsTheRunAtItsNode() {
    window_->RollingRestartAction()->trigger();
    RollingRestartDialog* dialog = window_->rolling_restart_dialog();
    QVERIFY(dialog && dialog->isVisible());
    // Nothing selected but one node: every node offered and ticked, replicas first.
    QCOMPARE(dialog->CheckedNodes(), (QStringList{"replica1", "replica2", "updater"}));
    const int pid = Pid("replica1");
    dialog->SetRestartCommand("echo cannot reach {name} >&2; exit 3");
    QSignalSpy finished(dialog, &RollingRestartDialog::Finished);
    QVERIFY(dialog->Start());
    QVERIFY(!dialog->Start());  // One run at a time.
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished[0][0].toBool(), false);
    const QString message = finished[0][1].toString();
    QVERIFY2(message.startsWith("Failed: replica1: restart:") &&
                 message.contains("exited with 3: cannot reach replica1"),
             qPrintable(message));
    QVERIFY2(dialog->LogText().contains("  | cannot reach replica1"),
             qPrintable(dialog->LogText()));
    QVERIFY(!dialog->LogText().contains("replica2"));  // The run stopped at its first node.
    QCOMPARE(Pid("replica1"), pid);
    // Left as the failed step left it: drained, as the message's step says.
    QCOMPARE(lab_.TelemetryAt("replica1").state(), admin::NODE_LAME_DUCK);
    QVERIFY(Undrain("replica1"));
    dialog->hide();
  }

  void replicasSelectedInTheOverviewRestartOneAtATime() {
    QVERIFY(SelectInOverview({"replica1", "replica2"}));
    QCOMPARE(window_->session()->action_controller()->DrainTargets().size(), 2);
    window_->RollingRestartAction()->trigger();
    RollingRestartDialog* dialog = window_->rolling_restart_dialog();
    QCOMPARE(dialog->CheckedNodes(), (QStringList{"replica1", "replica2"}));
    dialog->SetRestartCommand(window_->session()->RestartCommand());
    const int updater = Pid("updater"), replica1 = Pid("replica1"), replica2 = Pid("replica2");

    QSignalSpy finished(dialog, &RollingRestartDialog::Finished);
    QVERIFY(dialog->Start());
    // A picture of it under way: the second node's turn.
    QVERIFY(QTest::qWaitFor([&] { return dialog->LogText().contains("[2/2] replica2"); }, 120000) ||
            !finished.isEmpty());
    dialog->resize(760, 560);
    QVERIFY(dialog->grab().save(QDir(ScreenshotDir()).filePath("rolling_restart.png")));
    QVERIFY(!finished.isEmpty() || finished.wait(120000));
    QVERIFY2(finished[0][0].toBool(),
             qPrintable(finished[0][1].toString() + "\n" + dialog->LogText()));
    const QString log = dialog->LogText();
    for (const char* step : {"[1/2] replica1", "replica1: drained in", "replica1: undrained",
                             "[2/2] replica2", "replica2: serving and caught up",
                             "replica2: undrained", "Done: replica1, replica2 restarted"}) {
      QVERIFY2(log.contains(step), qPrintable(QString(step) + " not in:\n" + log));
    }
    QVERIFY(Pid("replica1") != replica1);
    QVERIFY(Pid("replica2") != replica2);
    QCOMPARE(Pid("updater"), updater);
    for (const char* host : {"replica1", "replica2"}) {
      QCOMPARE(lab_.TelemetryAt(host).state(), admin::NODE_SERVING);
    }
    ui::AuditLog* audit = window_->session()->action_controller()->audit_log();
    QVERIFY(audit);
    const QVector<ui::AuditEntry> rows = audit->Search({"", "", "rolling restart", 10});
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0].result, QString("OK"));
    QCOMPARE(rows[0].node_name, QString("replica1, replica2"));
    QVERIFY(!rows[1].ok);
    dialog->hide();
  }

  // Stop while the first node restarts: the run ends there (the restarted node serves by
  // itself), and the next node is left alone.
  void stopEndsTheRunBeforeTheNextNode() {
    window_->RollingRestartAction()->trigger();
    RollingRestartDialog* dialog = window_->rolling_restart_dialog();
    QCOMPARE(dialog->CheckedNodes(), (QStringList{"replica1", "replica2"}));  // Still selected.
    // A restart that takes a moment, so that Stop comes while it runs.
    dialog->SetRestartCommand("sleep 1; " + window_->session()->RestartCommand());
    const int replica2 = Pid("replica2");
    QSignalSpy finished(dialog, &RollingRestartDialog::Finished);
    QVERIFY(dialog->Start());
    QVERIFY(
        QTest::qWaitFor([&] { return dialog->LogText().contains("replica1: drained in"); }, 60000));
    // Quitting the console now asks first; Cancel keeps the window and the run.
    bool asked = false;
    QTimer::singleShot(0, [&] {
      for (QWidget* w : QApplication::topLevelWidgets()) {
        auto* box = qobject_cast<QMessageBox*>(w);
        if (!box || box->objectName() != "quitDuringRollingRestart") continue;
        asked = true;
        box->button(QMessageBox::Cancel)->click();
      }
    });
    QVERIFY(!window_->close());
    QVERIFY(asked);
    QVERIFY(window_->isVisible() && dialog->Running());
    dialog->Stop();
    QVERIFY(!finished.isEmpty() || finished.wait(120000));
    QCOMPARE(finished[0][0].toBool(), false);
    QVERIFY2(finished[0][1].toString().startsWith("Stopped: "),
             qPrintable(finished[0][1].toString()));
    QVERIFY(!dialog->LogText().contains("[2/2]"));
    QCOMPARE(Pid("replica2"), replica2);
    QVERIFY(WaitFor([&] { return lab_.TelemetryAt("replica1").state() == admin::NODE_SERVING; }));
    QCOMPARE(lab_.TelemetryAt("replica2").state(), admin::NODE_SERVING);
  }

  // Pictures to look at: the window with two nodes selected, small and large; the dialog empty
  // and with 300 nodes of long names and a long command, small and large.
  void screenshotsAtSmallAndLargeSizes() {
    const QDir shots(ScreenshotDir());
    QVERIFY(SelectInOverview({"replica1", "updater"}));
    window_->Tabs()->setCurrentIndex(window_->TabIndex("Overview"));
    for (const QSize size : {QSize(1024, 700), QSize(1920, 1200)}) {
      window_->resize(size);
      QCoreApplication::processEvents();
      QVERIFY(window_->grab().save(
          shots.filePath(QString("rolling_restart_selection_%1.png").arg(size.width()))));
    }
    RollingRestartDialog* dialog = window_->rolling_restart_dialog();
    QVERIFY(dialog && !dialog->Running());
    dialog->show();
    QVector<RollingRestartDialog::Node> many;
    for (int i = 0; i < 300; ++i) {
      many.push_back(
          {QString("replica-%1.rack-%2.datacenter-with-a-long-name.example.org").arg(i).arg(i % 12),
           "replica"});
    }
    const std::vector<std::pair<QString, QVector<RollingRestartDialog::Node>>> cases = {
        {"empty", {}}, {"extreme", many}};
    for (const auto& [name, nodes] : cases) {
      dialog->SetNodes(nodes, {});
      dialog->SetRestartCommand(name == "empty" ? QString()
                                                : "ssh -o ConnectTimeout=5 operator@{name} sudo "
                                                  "systemctl restart railyard-node.service && "
                                                  "sleep 2");
      for (const QSize size : {QSize(560, 420), QSize(1400, 1000)}) {
        dialog->resize(size);
        QCoreApplication::processEvents();
        QVERIFY(dialog->grab().save(
            shots.filePath(QString("rolling_restart_%1_%2.png").arg(name).arg(size.width()))));
      }
    }
    QCOMPARE(dialog->CheckedNodes().size(), 300);
    // The empty case's warning went with it.
    QCOMPARE(dialog->StatusText(), QString("Not started."));
    // Tick none, then tick all, by their buttons.
    auto* none = dialog->findChild<QPushButton*>(QStringLiteral("tickNone"));
    auto* all = dialog->findChild<QPushButton*>(QStringLiteral("tickAll"));
    QVERIFY(none && all && none->isEnabled());
    QTest::mouseClick(none, Qt::LeftButton);
    QVERIFY(dialog->CheckedNodes().isEmpty());
    QTest::mouseClick(all, Qt::LeftButton);
    QCOMPARE(dialog->CheckedNodes().size(), 300);
    dialog->hide();
  }

  void cleanupTestCase() {
    window_.reset();
    QVERIFY(lab_.Down());
  }
};

RAILYARD_QTEST_MAIN(ConsoleRollingRestartTest)
#include "tst_console_rolling_restart.moc"
