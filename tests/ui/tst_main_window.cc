// SPDX-License-Identifier: Apache-2.0
// The main window against a real node on loopback (with a load client, so slot tables fill):
// every tab renders and is saved as a screenshot under the build folder; node selection, read-only
// mode, recording, cluster files, replay, and tokens that never reach the settings.
#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QListView>
#include <QMainWindow>
#include <QMenuBar>
#include <QMessageBox>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QToolBar>

#include "core/trace/recording_reader.h"
#include "tests/support/admin_tokens.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"
#include "tests/ui/loaded_node.h"
#include "ui/actions/action_controller.h"
#include "ui/models/overview_model.h"
#include "ui/models/slot_matrix_model.h"
#include "ui/session/token_store.h"
#include "ui/shell/alert_notifier.h"
#include "ui/shell/help_dialogs.h"
#include "ui/shell/main_window.h"
#include "ui/shell/prometheus_dialog.h"
#include "ui/sources/recorder.h"
#include "ui/sources/replay_source.h"
#include "ui/views/replication_view.h"
#include "ui/views/slot_matrix_view.h"
#include "ui/views/timeline_widget.h"

using railyard::testing::kOperatorToken;
using railyard::testing::kViewerToken;
using railyard::testing::ScreenshotDir;
using railyard::testing::SourcePath;

using railyard::ui::MainWindow;
using railyard::ui::NodeHealth;
using railyard::ui::OverviewModel;
using railyard::ui::SlotMatrixModel;
using railyard::ui::TokenStore;
using railyard::ui::ViewLink;

namespace {

std::vector<QAction*> NodeActions(const MainWindow& window) {
  const railyard::ui::ActionController* a = window.action_controller();
  return {a->DrainAction(), a->UndrainAction(), a->FlushAction(), a->CompactAllAction()};
}

bool Save(QWidget* widget, const QString& name) {
  const QImage image = widget->grab().toImage();
  if (image.isNull() || image.width() < 100) return false;
  // The folder may not be there yet: this suite run alone in a fresh build folder.
  return QDir().mkpath(ScreenshotDir()) && image.save(QDir(ScreenshotDir()).filePath(name));
}

// A QAbstractItemModelTester on each of the console's own item models in `window` (Qt's internal
// ones, such as a combo box's, are left alone), checking them through every change that follows.
std::vector<std::unique_ptr<QAbstractItemModelTester>> TestModels(const QObject& window) {
  std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
  QStringList names;
  for (QAbstractItemModel* model : window.findChildren<QAbstractItemModel*>()) {
    const QString name = QString::fromLatin1(model->metaObject()->className());
    if (!name.startsWith("railyard::ui::")) continue;
    names << name;
    testers.push_back(std::make_unique<QAbstractItemModelTester>(
        model, QAbstractItemModelTester::FailureReportingMode::QtTest));
  }
  for (const char* expected :
       {"OverviewModel", "OverviewFilterModel", "SlotMatrixModel", "ClientDetailModel",
        "CompactionHistoryModel", "AuditLogModel", "ReplicationModel"}) {
    if (!names.contains(QStringLiteral("railyard::ui::") + expected)) {
      qWarning("TestModels: no %s in the window (it has %s)", expected,
               qPrintable(names.join(", ")));
      testers.clear();  // The caller's check fails.
      break;
    }
  }
  return testers;
}

}  // namespace

class MainWindowTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // Settings go to a test location.
    QCoreApplication::setOrganizationName("RailyardTest");
    QCoreApplication::setApplicationName("tst_ui_main_window");
    QSettings().clear();
    QVERIFY(dir_.isValid());
    QVERIFY(loaded_.Start("window-node", dir_.filePath("node").toStdString(), "window-test-client",
                          {kViewerToken}, {kOperatorToken}));
    address_ = loaded_.AdminAddress();
  }

  void cleanupTestCase() {
    loaded_.Stop();
    QSettings().clear();
  }

  // The Nodes list reads in natural name order (backend-2 before backend-10), and a row picks the
  // node it shows, not the node added at that position.
  void nodeListIsInNaturalOrder() {
    MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir_.filePath("audit-order.sqlite");
    MainWindow window(options);
    for (const auto& [port, name] :
         {std::pair{"1", "backend-10"}, std::pair{"2", "backend-2"}, std::pair{"3", "backend-1"}}) {
      QString error;
      QVERIFY2(window.AddNode(QString("127.0.0.1:%1").arg(port), "", &error, name),
               qPrintable(error));
    }
    QListView* list = window.NodeList();
    QStringList shown;
    for (int row = 0; row < list->model()->rowCount(); ++row) {
      shown << list->model()->index(row, OverviewModel::kName).data().toString();
    }
    QCOMPARE(shown, QStringList({"backend-1", "backend-2", "backend-10"}));
    list->setCurrentIndex(list->model()->index(2, OverviewModel::kName));
    QCOMPARE(window.CurrentNode(), 0);  // backend-10 was added first.
    window.SetCurrentNode(1);
    QCOMPARE(list->currentIndex().data().toString(), QString("backend-2"));
  }

  void everyTabRendersALiveNode() {
    MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir_.filePath("audit.sqlite");
    MainWindow window(options);
    const auto testers = TestModels(window);
    QVERIFY(!testers.empty());
    window.resize(1280, 800);
    QString error;
    QVERIFY2(window.AddNode(address_, kOperatorToken, &error), qPrintable(error));
    window.show();
    QTRY_VERIFY_WITH_TIMEOUT(window.State()->Node(0).health == NodeHealth::kServing, 10000);
    // A hidden tab's model waits to be shown (SlotMatrixModel::SetActive).
    window.Tabs()->setCurrentIndex(window.TabIndex("Slots"));
    QTRY_VERIFY_WITH_TIMEOUT(
        window.slot_matrix_view()->Model()->RowOfClient(loaded_.load->client().client_id()) >= 0,
        10000);
    QCOMPARE(window.CurrentNode(), 0);
    QCOMPARE(window.NodeSelector()->currentText(), QString("window-node"));
    QVERIFY(!window.ReadOnly());
    for (QAction* action : NodeActions(window)) QVERIFY(action->isEnabled());
    QVERIFY(window.SummaryLine().startsWith("1 nodes: 1 serving"));
    const QStringList tabs = {"Overview", "Slots",      "Flow",        "Compaction",
                              "Bloom",    "Throughput", "Replication", "Audit log"};
    for (const QString& name : tabs) {
      const int index = window.TabIndex(name);
      QVERIFY2(index >= 0, qPrintable(name));
      window.Tabs()->setCurrentIndex(index);
      // A few frames of telemetry on this tab.
      const qint64 before = window.State()->NowMs();
      QTRY_VERIFY_WITH_TIMEOUT(window.State()->NowMs() > before + 250, 20000);
      QVERIFY2(Save(&window, "console_" + name.toLower().replace(' ', '_') + ".png"),
               qPrintable(name));
    }
    // The slot matrix's detail list for the load client.
    window.Tabs()->setCurrentIndex(window.TabIndex("Slots"));
    const int row =
        window.slot_matrix_view()->Model()->RowOfClient(loaded_.load->client().client_id());
    window.slot_matrix_view()->SelectClient(row);
    QCoreApplication::processEvents();
    QVERIFY(Save(&window, "console_slots_detail.png"));
    // Its pool's slots as the node last said: a probe for a better slot holds a fifth a moment.
    QTRY_COMPARE_WITH_TIMEOUT(window.slot_matrix_view()->Model()->PoolSize(row), 4, 10000);
  }

  void readOnlyDisablesActionsButHidesNothing() {
    MainWindow::Options options;
    options.use_keyring = false;
    options.read_only = true;
    options.audit_path = dir_.filePath("audit.sqlite");
    MainWindow window(options);
    const auto testers = TestModels(window);
    QVERIFY(!testers.empty());
    QVERIFY(window.AddNode(address_, kOperatorToken, nullptr));
    window.show();
    QTRY_VERIFY_WITH_TIMEOUT(window.State()->Node(0).health == NodeHealth::kServing, 10000);
    QVERIFY(window.ReadOnly());
    for (QAction* action : NodeActions(window)) {
      QVERIFY2(!action->isEnabled(), qPrintable(action->text()));
    }
    QCOMPARE(window.Tabs()->count(),
             10);  // Overview ... Replication, Alerts, Incidents, Audit log.
    // No token at all is read-only as well.
    MainWindow::Options viewer_options;
    viewer_options.use_keyring = false;
    viewer_options.audit_path = dir_.filePath("audit.sqlite");
    MainWindow viewer(viewer_options);
    const auto viewer_testers = TestModels(viewer);
    QVERIFY(!viewer_testers.empty());
    QVERIFY(viewer.AddNode(address_, {}, nullptr));
    QVERIFY(viewer.ReadOnly());
  }

  void recordsTheLiveClusterIntoAReplayableFile() {
    MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir_.filePath("audit.sqlite");
    MainWindow window(options);
    const auto testers = TestModels(window);
    QVERIFY(!testers.empty());
    QVERIFY(window.AddNode(address_, kViewerToken, nullptr));
    QTRY_VERIFY_WITH_TIMEOUT(window.State()->Node(0).health == NodeHealth::kServing, 10000);
    const QString out = dir_.filePath("window.rec");
    QString error;
    QVERIFY2(window.StartRecording(out, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(window.recorder()->SnapshotsQueued() >= 5, 10000);
    window.StopRecording();
    std::unique_ptr<railyard::trace::RecordingReader> reader;
    QVERIFY(railyard::trace::RecordingReader::Open(out.toStdString(), &reader).ok());
    uint64_t count = 0;
    QVERIFY(reader->SnapshotCount(&count).ok());
    QVERIFY(count >= 5);
    // Open it: replay mode, read-only, the timeline shows.
    QVERIFY2(window.OpenRecording(out, &error), qPrintable(error));
    QVERIFY(window.IsReplay());
    QVERIFY(window.ReadOnly());
    QCOMPARE(window.State()->NodeCount(), 1);
    QVERIFY(window.State()->Node(0).telemetry);
    window.show();
    QVERIFY(window.Timeline()->isVisible());

    // Back to live: the node watched before the replay, with its token and name, polled afresh.
    QVERIFY(window.BackToLiveAction()->isEnabled() && window.BackToLiveAction()->isVisible());
    window.BackToLiveAction()->trigger();
    QVERIFY(!window.IsReplay());
    QCOMPARE(window.session()->mode(), railyard::ui::Session::Mode::kLive);
    QVERIFY(!window.Timeline()->isVisible());
    QVERIFY(!window.BackToLiveAction()->isEnabled() && !window.BackToLiveAction()->isVisible());
    QCOMPARE(window.State()->NodeCount(), 1);
    QCOMPARE(window.State()->Node(0).admin_address, address_);
    QTRY_VERIFY_WITH_TIMEOUT(window.State()->Node(0).health == NodeHealth::kServing, 10000);
    QCOMPARE(window.session()->CopyTargets().front().token, std::string(kViewerToken));
    // And back and forth again: the live cluster is remembered each time it is left.
    QVERIFY2(window.OpenRecording(out, &error), qPrintable(error));
    QVERIFY(window.BackToLive(&error));
    QVERIFY(!window.BackToLive(&error));  // Live already.
    QVERIFY2(error.contains("no live cluster to go back to"), qPrintable(error));
  }

  void drainFromTheWindowReachesTheNodeAndTheRecording() {
    MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir_.filePath("audit.sqlite");
    MainWindow window(options);
    const auto testers = TestModels(window);
    QVERIFY(!testers.empty());
    QVERIFY(window.AddNode(address_, kOperatorToken, nullptr));
    QTRY_VERIFY_WITH_TIMEOUT(window.State()->Node(0).health == NodeHealth::kServing, 10000);
    railyard::ui::ActionController* actions = window.action_controller();
    QString asked;
    actions->SetConfirmer([&](const QString&, const QString& text) {
      asked = text;
      return true;
    });
    actions->SetResultPresenter([](const QString&, const QString&, bool) {});
    const QString out = dir_.filePath("actions.rec");
    QVERIFY(window.StartRecording(out, nullptr));
    QTRY_VERIFY_WITH_TIMEOUT(actions->DrainAction()->isEnabled(), 5000);
    actions->DrainAction()->trigger();
    QVERIFY2(asked.contains("window-node"), qPrintable(asked));  // Names the node.
    QTRY_VERIFY_WITH_TIMEOUT(window.State()->Node(0).health == NodeHealth::kLameDuck, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(actions->UndrainAction()->isEnabled(), 10000);
    actions->UndrainAction()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(window.State()->Node(0).health == NodeHealth::kServing, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(actions->InFlight() == 0, 10000);
    window.StopRecording();
    std::unique_ptr<railyard::trace::RecordingReader> reader;
    QVERIFY(railyard::trace::RecordingReader::Open(out.toStdString(), &reader).ok());
    std::vector<railyard::trace::Event> events;
    QVERIFY(reader->Events(&events).ok());
    // Once (C12: the console's own event and the node's report made two): the node's report in
    // its telemetry, which says who ran it.
    int console_drains = 0, node_drains = 0;
    for (const railyard::trace::Event& e : events) {
      if (e.kind != "drain") continue;
      QCOMPARE(e.node, std::string("window-node"));
      if (QString::fromStdString(e.detail).contains("console action")) {
        ++console_drains;
      } else {
        ++node_drains;
        QVERIFY2(QString::fromStdString(e.detail).contains("railyard console"), e.detail.c_str());
      }
    }
    QCOMPARE(console_drains, 0);
    QCOMPARE(node_drains, 1);
  }

  void replaysTheCommittedRecording() {
    MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir_.filePath("audit.sqlite");
    MainWindow window(options);
    const auto testers = TestModels(window);
    QVERIFY(!testers.empty());
    window.resize(1280, 800);
    const QString copy = dir_.filePath("console_small.rec");
    QFile::remove(copy);
    QVERIFY(QFile::copy(QString(SourcePath("tests/data/console_small.rec")), copy));
    QString error;
    QVERIFY(window.alert_notifier()->WatchingLive());
    QVERIFY2(window.OpenRecording(copy, &error), qPrintable(error));
    QVERIFY(!window.alert_notifier()->WatchingLive());  // A replay's alerts are not told.
    window.show();
    QCOMPARE(window.State()->NodeCount(), 3);
    window.replay_source()->JumpToEvent(0);  // node1 drained; its next snapshot shows it.
    window.replay_source()->SetSpeed(4);
    window.replay_source()->Step();
    QCOMPARE(window.State()->Node(window.State()->IndexOfName("node1")).health,
             NodeHealth::kLameDuck);
    window.Tabs()->setCurrentIndex(window.TabIndex("Slots"));
    QCoreApplication::processEvents();
    QVERIFY(Save(&window, "console_replay.png"));
  }

  // View > Copy command line: a command that opens the same source, tab, window and position,
  // which the console's own flags take back (tst_app_exit_codes runs it).
  void theViewsCommandLineNamesSourceTabWindowAndPosition() {
    MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir_.filePath("audit.sqlite");
    MainWindow window(options);
    const QString copy = dir_.filePath("link it's.rec");  // A name a shell must have quoted.
    QFile::remove(copy);
    QVERIFY(QFile::copy(QString(SourcePath("tests/data/console_small.rec")), copy));
    QString error;
    QVERIFY2(window.OpenRecording(copy, &error), qPrintable(error));
    window.replay_source()->Seek(window.replay_source()->StartMs() + 4000);
    const qint64 at = window.replay_source()->PositionMs();
    window.Tabs()->setCurrentIndex(window.TabIndex("Audit log"));
    QVERIFY(window.throughput_view()->SetWindowMinutes(60));
    const ViewLink link = window.CurrentViewLink();
    QCOMPARE(link.source, QStringList({"--recording", QFileInfo(copy).absoluteFilePath()}));
    QCOMPARE(link.tab, QString("audit"));
    QCOMPARE(railyard::ui::TabIndex(window.Tabs(), link.tab), window.TabIndex("Audit log"));
    QCOMPARE(link.window_minutes, 60);
    QCOMPARE(railyard::ui::WindowMinutes(railyard::ui::WindowText(link.window_minutes)), 60);
    QCOMPARE(link.at_ms.value_or(0), at);
    const QString line = window.ViewCommandLineText();
    QVERIFY2(line.startsWith("railyard --recording '") && line.contains("link it'\\''s.rec'") &&
                 line.contains(" --tab audit --window 1h --at "),
             qPrintable(line));
    QVERIFY2(line.contains(QDateTime::fromMSecsSinceEpoch(at, Qt::UTC).toString("HH:mm:ss") + "Z"),
             qPrintable(line));
    QVERIFY(!link.range);  // Following.

    // Charts held on a range: every time axis shows it and the line carries it, to the second.
    const qint64 from = at - 95000, to = at - 35000;
    window.ShowRange(from, to);
    for (const auto& shown :
         {window.throughput_view()->FixedRange(), window.replication_view()->FixedRange()}) {
      QVERIFY(shown);
      QVERIFY2(qAbs(shown->from_ms - from) <= 1 && qAbs(shown->to_ms - to) <= 1,
               qPrintable(QString("%1..%2").arg(shown->from_ms).arg(shown->to_ms)));
    }
    const QString held = window.ViewCommandLineText();
    auto utc = [](qint64 ms) {
      return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString("yyyy-MM-ddTHH:mm:ssZ");
    };
    QVERIFY2(held.contains(" --window 1h --from " + utc(from) + " --to " + utc(to) + " --at "),
             qPrintable(held));
    // On the Replication tab, its plot's range; following again, none.
    window.Tabs()->setCurrentIndex(window.TabIndex("Replication"));
    QVERIFY(window.CurrentViewLink().range);
    window.replication_view()->Follow();
    QVERIFY(!window.CurrentViewLink().range);
    // A source opened anew follows on every axis.
    window.ShowRange(from, to);
    QVERIFY2(window.OpenRecording(copy, &error), qPrintable(error));
    QVERIFY(!window.throughput_view()->FixedRange());
    QVERIFY(!window.replication_view()->FixedRange());

    // A source main() named (a Prometheus range) stands for the file it was fetched into.
    options.source_arguments = {"--prometheus", "http://prom:9090", "--since", "1h"};
    options.source_recording = copy;
    MainWindow fetched(options);
    QVERIFY2(fetched.OpenRecording(copy, &error), qPrintable(error));
    QCOMPARE(fetched.CurrentViewLink().source, options.source_arguments);
    // Live nodes, with no token in the line.
    MainWindow::Options live_options;
    live_options.use_keyring = false;
    live_options.audit_path = dir_.filePath("audit.sqlite");
    MainWindow live(live_options);
    QVERIFY2(live.AddNode(address_, kOperatorToken, &error), qPrintable(error));
    const QString live_line = live.ViewCommandLineText();
    QVERIFY2(live_line.startsWith("railyard -n " + address_ + " --tab overview --window 5m"),
             qPrintable(live_line));
    QVERIFY(!live_line.contains(kOperatorToken));
  }

  // File > Open Prometheus range's dialog refuses what makes no range, saying why, and gives
  // back what it was set to.
  void thePrometheusDialogSaysWhatIsWrong() {
    railyard::ui::PrometheusDialog dialog(false);
    railyard::cluster::PrometheusSourceSpec spec;
    spec.url = "prometheus:9090";
    dialog.SetSpec(spec);
    QVERIFY2(dialog.Problem().contains("a URL such as"), qPrintable(dialog.Problem()));
    dialog.open();
    dialog.accept();
    QVERIFY(dialog.isVisible());  // Still open: Open was refused.
    QVERIFY(dialog.findChild<QLabel*>("prometheusProblem")->text().contains("a URL such as"));
    spec.url = "https://mimir.example/prometheus";
    spec.since = "6h";
    spec.until = "2026-11-29T03:10:00Z";
    spec.match = "job=\"railyard\"";
    dialog.SetSpec(spec);
    QCOMPARE(dialog.Problem(), QString());
    QCOMPARE(dialog.findChild<QLabel*>("prometheusProblem")->text(), QString());  // Corrected.
    QCOMPARE(dialog.Spec().url, spec.url);
    QCOMPARE(dialog.Spec().since, spec.since);
    QCOMPARE(dialog.Spec().until, spec.until);
    QCOMPARE(dialog.Spec().match, spec.match);
    spec.since = "soon";
    dialog.SetSpec(spec);
    QVERIFY2(dialog.Problem().contains("--since soon"), qPrintable(dialog.Problem()));
    spec.since = "6h";
    dialog.SetSpec(spec);
    QVERIFY(Save(&dialog, "console_prometheus_dialog.png"));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
  }

  void clusterFilesAreRememberedWithoutTokens() {
    MainWindow::Options options;
    options.use_keyring = false;
    options.remember_recent = true;
    options.audit_path = dir_.filePath("audit.sqlite");
    MainWindow window(options);
    const auto testers = TestModels(window);
    QVERIFY(!testers.empty());
    const QString path = dir_.filePath("cluster.textproto");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QString("name: \"test\"\nnode { name: \"window-node\" admin: \"%1\" }\n")
                   .arg(address_)
                   .toUtf8());
    file.close();
    QString error;
    QVERIFY2(window.OpenClusterFile(path, kOperatorToken, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(window.State()->Node(0).health == NodeHealth::kServing, 10000);
    QVERIFY(window.RecentClusters().contains(QFileInfo(path).absoluteFilePath()));
    QCOMPARE(window.token_store()->Token(address_), QString(kOperatorToken));
    QSettings settings;
    for (const QString& key : settings.allKeys()) {
      QVERIFY2(!settings.value(key).toString().contains(kOperatorToken), qPrintable(key));
      QVERIFY(!settings.value(key).toStringList().join(' ').contains(kOperatorToken));
    }
    // A broken cluster file is refused with its name in the message.
    QFile bad(dir_.filePath("bad.textproto"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("node { name: ");
    bad.close();
    QVERIFY(!window.OpenClusterFile(bad.fileName(), {}, &error));
    QVERIFY2(error.contains("bad.textproto"), qPrintable(error));
  }

  void keysSwitchTabsWhereverTheFocusIs() {
    MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir_.filePath("audit.sqlite");
    MainWindow window(options);
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));  // Window shortcuts need the active window.
    QTabWidget* tabs = window.Tabs();
    const int last = tabs->count() - 1;
    QCOMPARE(tabs->currentIndex(), 0);
    // From the node list, then from a table inside a tab.
    window.NodeList()->setFocus();
    QTest::keyClick(window.NodeList(), Qt::Key_Tab, Qt::ControlModifier);
    QCOMPARE(tabs->currentIndex(), 1);
    QTest::keyClick(window.NodeList(), Qt::Key_PageDown, Qt::ControlModifier);
    QCOMPARE(tabs->currentIndex(), 2);
    QTest::keyClick(window.NodeList(), Qt::Key_Backtab, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(tabs->currentIndex(), 1);
    QTest::keyClick(window.NodeList(), Qt::Key_PageUp, Qt::ControlModifier);
    QCOMPARE(tabs->currentIndex(), 0);
    QTest::keyClick(window.NodeList(), Qt::Key_PageUp, Qt::ControlModifier);  // Wraps round.
    QCOMPARE(tabs->currentIndex(), last);
    QTest::keyClick(window.NodeList(), Qt::Key_Tab, Qt::ControlModifier);
    QCOMPARE(tabs->currentIndex(), 0);
    QTableView* table = window.Tabs()->widget(0)->findChild<QTableView*>();
    QVERIFY(table);
    table->setFocus();
    // Ctrl+1..8 the first eight, Ctrl+9 the last.
    for (int n = 1; n <= 8; ++n) {
      QTest::keyClick(QApplication::focusWidget(), Qt::Key(Qt::Key_0 + n), Qt::ControlModifier);
      QCOMPARE(tabs->currentIndex(), n - 1);
    }
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_9, Qt::ControlModifier);
    QCOMPARE(tabs->currentIndex(), tabs->count() - 1);
    QCOMPARE(tabs->currentIndex(), window.TabIndex("Audit log"));
  }

  void shortcutListNamesEveryActionWithAShortcut() {
    MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir_.filePath("audit.sqlite");
    MainWindow window(options);
    const railyard::ui::ActionController* a = window.action_controller();
    QAction* record = nullptr;
    for (QAction* action : window.findChildren<QAction*>()) {
      if (action->text() == "Record") record = action;
    }
    QVERIFY(record);
    // The operator's actions have shortcuts, none of them one of Qt's standard keys.
    QList<QKeySequence> standard;
    for (int k = QKeySequence::HelpContents; k <= QKeySequence::Backspace; ++k) {
      standard += QKeySequence::keyBindings(QKeySequence::StandardKey(k));
    }
    for (QAction* action :
         {a->DrainAction(), a->UndrainAction(), a->CompactAllAction(), a->FlushAction(), record}) {
      QVERIFY2(!action->shortcut().isEmpty(), qPrintable(action->text()));
      QVERIFY2(!standard.contains(action->shortcut()), qPrintable(action->text()));
    }
    const QVector<railyard::ui::ShortcutRow> rows = railyard::ui::ShortcutRows(window.menuBar());
    QStringList listed;
    for (const railyard::ui::ShortcutRow& row : rows) listed << row.action + " = " + row.keys;
    // Every action in the window that has a shortcut is listed with it, and no key is taken twice.
    QSet<QString> keys;
    for (QAction* action : window.findChildren<QAction*>()) {
      for (const QKeySequence& key : action->shortcuts()) {
        const QString text = key.toString(QKeySequence::NativeText);
        bool found = false;
        for (const railyard::ui::ShortcutRow& row : rows) {
          if (row.keys.split(", ").contains(text) &&
              row.action == action->text().remove('&').remove("...")) {
            found = true;
          }
        }
        QVERIFY2(found, qPrintable(action->text() + " " + text + " not in " + listed.join("; ")));
        QVERIFY2(!keys.contains(text), qPrintable(text));
        keys.insert(text);
      }
    }
    QVERIFY2(listed.contains("Drain = Ctrl+Shift+D"), qPrintable(listed.join("; ")));
    QVERIFY2(listed.contains("Next tab = Ctrl+Tab, Ctrl+PgDown"), qPrintable(listed.join("; ")));
    QVERIFY2(listed.contains("Slots = Ctrl+2"), qPrintable(listed.join("; ")));
    // The Help menu opens the list and the glossary.
    QMenu* help = nullptr;
    for (QAction* top : window.menuBar()->actions()) {
      if (top->text().remove('&') == "Help") help = top->menu();
    }
    QVERIFY(help);
    for (QAction* item : help->actions()) item->trigger();
    auto* table = window.findChild<QTableWidget*>("shortcuts");
    QVERIFY(table);
    QCOMPARE(table->rowCount(), int(rows.size()));
    auto* glossary = window.findChild<QTextBrowser*>("glossary");
    QVERIFY(glossary);
    for (const char* term : {"Slot", "Pool", "Lame duck", "Compaction set", "Bloom page usefulness",
                             "Recording", "Updater", "Replica", "Lag"}) {
      QVERIFY2(glossary->toPlainText().contains(term), term);
    }
  }

  void successfulActionIsToldInTheStatusBarNotABox() {
    MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir_.filePath("audit.sqlite");
    MainWindow window(options);
    window.show();
    QVERIFY(window.AddNode(address_, kOperatorToken, nullptr));
    QTRY_VERIFY_WITH_TIMEOUT(window.State()->Node(0).health == NodeHealth::kServing, 10000);
    railyard::ui::ActionController* actions = window.action_controller();
    actions->SetConfirmer([](const QString&, const QString&) { return true; });  // Only that.
    QTRY_VERIFY_WITH_TIMEOUT(actions->FlushAction()->isEnabled(), 5000);
    QSignalSpy finished(actions, &railyard::ui::ActionController::ActionFinished);
    actions->FlushAction()->trigger();
    QVERIFY(finished.wait(15000));
    QTRY_COMPARE_WITH_TIMEOUT(actions->InFlight(), 0, 5000);
    QCoreApplication::processEvents();
    for (QWidget* top : QApplication::topLevelWidgets()) {
      if (auto* box = qobject_cast<QMessageBox*>(top)) {
        QVERIFY2(!box->isVisible(), qPrintable(box->text()));
      }
    }
    const QString message = window.statusBar()->currentMessage();
    QVERIFY2(message.contains("flush on window-node") && message.contains("done"),
             qPrintable(message));
  }

  // C12: each console action was recorded twice: as the console's event and as the command the
  // node reports in its telemetry. A recording now holds it once, from the node.
  void aRecordedActionAppearsOnce() {
    MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir_.filePath("audit-once.sqlite");
    MainWindow window(options);
    window.show();
    const qint64 opened = QDateTime::currentMSecsSinceEpoch();
    QVERIFY(window.AddNode(address_, kOperatorToken, nullptr));
    // A snapshot taken since the window opened, not only the backfill from the node's flight
    // recorder, whose last snapshot may predate the previous test's flush (which recording would
    // then count as new).
    QTRY_VERIFY_WITH_TIMEOUT(window.State()->Node(0).health == NodeHealth::kServing &&
                                 window.State()->Node(0).updated_ms > opened,
                             10000);
    const QString path = dir_.filePath("once.rec");
    QString error;
    QVERIFY2(window.StartRecording(path, &error), qPrintable(error));
    railyard::ui::ActionController* actions = window.action_controller();
    actions->SetConfirmer([](const QString&, const QString&) { return true; });
    QTRY_VERIFY_WITH_TIMEOUT(actions->FlushAction()->isEnabled(), 5000);
    QSignalSpy finished(actions, &railyard::ui::ActionController::ActionFinished);
    actions->FlushAction()->trigger();
    QVERIFY(finished.wait(15000));
    QVERIFY(finished[0][1].toBool());  // The node logged it.
    // Recorded once the node's telemetry carries it.
    const auto node_reported = [&] {
      const auto& t = window.State()->Node(0).telemetry;
      if (!t) return false;
      for (const railyard::admin::CommandEvent& e : t->recent_commands()) {
        if (e.command() == "flush") return true;
      }
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(node_reported(), 10000);
    const quint64 queued = window.recorder()->SnapshotsQueued();
    QTRY_VERIFY_WITH_TIMEOUT(window.recorder()->SnapshotsQueued() > queued, 10000);
    window.StopRecording();
    // Stopping says where the recording went and how big it is (C16).
    const QString told = window.statusBar()->currentMessage();
    QVERIFY2(told.startsWith("Recorded ") && told.contains(path), qPrintable(told));
    std::unique_ptr<railyard::trace::RecordingReader> reader;
    QVERIFY(railyard::trace::RecordingReader::Open(path.toStdString(), &reader).ok());
    std::vector<railyard::trace::Event> events;
    QVERIFY(reader->Events(&events).ok());
    int flushes = 0;
    for (const railyard::trace::Event& e : events) flushes += e.kind == "flush" ? 1 : 0;
    QCOMPARE(flushes, 1);
  }

  void layoutIsRestoredFromTheSettings() {
    MainWindow::Options options;
    options.use_keyring = false;
    options.remember_layout = true;
    options.audit_path = dir_.filePath("audit.sqlite");
    QByteArray splitter_state;
    {
      MainWindow window(options);
      window.show();
      window.resize(1000, 650);
      auto* nodes = window.findChild<QDockWidget*>("nodes");
      QVERIFY(nodes);
      window.addDockWidget(Qt::RightDockWidgetArea, nodes);
      window.Tabs()->setCurrentIndex(window.TabIndex("Slots"));
      auto* splitter = window.slot_matrix_view()->findChild<QSplitter*>();
      QVERIFY(splitter);
      QCoreApplication::processEvents();
      const int total = splitter->sizes()[0] + splitter->sizes()[1];
      splitter->setSizes({total / 4, total - total / 4});
      splitter_state = splitter->saveState();
      QVERIFY(window.throughput_view()->SetWindowMinutes(5));
      QVERIFY(window.close());
    }
    {
      // The Throughput window is kept too.
      MainWindow window(options);
      QVERIFY(window.throughput_view()->SetWindowMinutes(360));
      QVERIFY(window.replication_view()->SetWindowMinutes(60));
      QVERIFY(window.close());
      MainWindow again(options);
      QCOMPARE(again.throughput_view()->WindowMinutes(), 360);
      QCOMPARE(again.replication_view()->WindowMinutes(), 60);
      QVERIFY(!again.SetWindowMinutes(7));
      QVERIFY(again.SetWindowMinutes(15));  // Both.
      QCOMPARE(again.replication_view()->WindowMinutes(), 15);
      QVERIFY(again.throughput_view()->SetWindowMinutes(5));
      QVERIFY(again.close());
    }
    {
      // A range the charts were held on is kept while the nodes' day behind still holds it.
      const qint64 now = QDateTime::currentMSecsSinceEpoch();
      MainWindow window(options);
      window.ShowRange(now - 7200000, now - 3600000);
      QVERIFY(window.close());
      MainWindow again(options);
      QVERIFY(!again.throughput_view()->FixedRange());  // Held again only when asked (live).
      QVERIFY(again.ShowSavedRange());
      const auto kept = again.throughput_view()->FixedRange();
      QVERIFY(kept);
      QVERIFY(qAbs(kept->from_ms - (now - 7200000)) <= 1 &&
              qAbs(kept->to_ms - (now - 3600000)) <= 1);
      QVERIFY(again.replication_view()->FixedRange());
      QVERIFY2(again.statusBar()->currentMessage().startsWith("Charts held on "),
               qPrintable(again.statusBar()->currentMessage()));
      again.ShowRange(now - 3 * 86400000LL, now - 2 * 86400000LL);  // Older than a day.
      QVERIFY(again.close());
      MainWindow older(options);
      QVERIFY(!older.ShowSavedRange());
      QVERIFY(!older.throughput_view()->FixedRange());
      older.ShowRange(now - 7200000, now - 3600000);
      older.throughput_view()->Follow();  // Following again when it closes: nothing kept.
      QVERIFY(older.close());
    }
    MainWindow restored(options);
    QVERIFY(!restored.ShowSavedRange());
    QVERIFY(!restored.throughput_view()->FixedRange());
    QCOMPARE(restored.size(), QSize(1000, 650));
    QCOMPARE(restored.dockWidgetArea(restored.findChild<QDockWidget*>("nodes")),
             Qt::RightDockWidgetArea);
    QCOMPARE(restored.slot_matrix_view()->findChild<QSplitter*>()->saveState(), splitter_state);
    QCOMPARE(restored.throughput_view()->WindowMinutes(), 5);
    // A window that does not remember layouts (tests, embedding) never reads the saved one.
    options.remember_layout = false;
    MainWindow fresh(options);
    QCOMPARE(fresh.size(), QSize(1280, 800));
    QSettings().remove("window");
  }

  void tokenStoreFallsBackToMemoryAndSaysSo() {
    // Offscreen CI has no secret service: the store must settle (keyring or memory) quickly.
    TokenStore store(true);
    QTRY_VERIFY_WITH_TIMEOUT(store.backend() != TokenStore::Backend::kProbing, 20000);
    if (store.backend() == TokenStore::Backend::kMemory) {
      QVERIFY(store.BackendDescription().contains("this session only"));
    }
    TokenStore memory(false);
    QCOMPARE(memory.backend(), TokenStore::Backend::kMemory);
    memory.SetToken("h:1", "secret");
    QCOMPARE(memory.Token("h:1"), QString("secret"));
    QVERIFY(memory.HasAnyToken());
    QString loaded;
    memory.Load("h:2", [&](const QString& t) { loaded = t.isEmpty() ? "none" : t; });
    QCOMPARE(loaded, QString("none"));
  }

 private:
  QTemporaryDir dir_;
  railyard::ui::testing::LoadedNode loaded_;
  QString address_;
};

RAILYARD_QTEST_MAIN(MainWindowTest)
#include "tst_main_window.moc"
