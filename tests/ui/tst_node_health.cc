// SPDX-License-Identifier: Apache-2.0
// Node health that explains itself, against real nodes on loopback: a refused token shows as
// "token refused" with the reason, stops polling (the node logs one refusal, never a lockout, and
// railyardctl with the right token from this host keeps working) and asks for another token,
// which resumes polling; the Overview's and the Nodes list's tooltips appear over a window that
// is not the active one; last-known figures are grey; Edit token and Remove node; adding an
// address already watched never replaces its token.
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <QHelpEvent>
#include <QLineEdit>
#include <QListView>
#include <QProcess>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <atomic>
#include <mutex>

#include "core/node/node.h"
#include "tests/support/admin_tokens.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"
#include "ui/models/overview_model.h"
#include "ui/models/palette.h"
#include "ui/session/token_store.h"
#include "ui/shell/main_window.h"
#include "ui/shell/token_dialog.h"
#include "ui/sources/live_source.h"
#include "ui/views/overview_view.h"

using railyard::testing::BuiltProgram;
using railyard::testing::kOperatorToken;
using railyard::testing::kViewerToken;

using namespace railyard;
using namespace railyard::ui;

namespace {

// Counts the node's log lines that refuse a token or lock a host out (the node logs every
// refusal; the console's own poller never writes these).
class RefusalCounter : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::atomic<int> refusals{0};
  std::atomic<int> lockouts{0};

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const std::string_view text(msg.payload.data(), msg.payload.size());
    if (text.find("refused admin.Telemetry") != std::string_view::npos &&
        text.find("invalid token") != std::string_view::npos) {
      ++refusals;
    }
    if (text.find("locked out") != std::string_view::npos) ++lockouts;
  }
  void flush_() override {}
};

std::unique_ptr<node::Node> OpenNode(const QString& dir, const std::string& name) {
  node::NodeOptions options;
  options.name = name;
  options.data_dir = dir.toStdString();
  options.io_threads = 1;
  options.worker_threads = 1;
  options.admin.viewer_tokens = {kViewerToken};
  options.admin.operator_tokens = {kOperatorToken};
  std::unique_ptr<node::Node> node;
  if (!node::Node::Open(options, &node).ok()) return nullptr;
  return node;
}

QString AddressOf(const node::Node& node) {
  return QString("127.0.0.1:%1").arg(node.admin_endpoint().port);
}

TokenDialog* OpenTokenDialog(const MainWindow& window) {
  for (TokenDialog* d : window.findChildren<TokenDialog*>()) {
    if (d->isVisible()) return d;
  }
  return nullptr;
}

// The text Qt shows after a real hover: the mouse rests on `pos` of `view`'s viewport and Qt's
// own tooltip timer sends the help event.
QString HoverText(QAbstractItemView* view, const QPoint& pos) {
  QToolTip::hideText();
  QTest::mouseMove(view->viewport(), pos);
  if (!QTest::qWaitFor([] { return QToolTip::isVisible(); }, 5000)) return {};
  return QToolTip::text();
}

}  // namespace

class NodeHealthTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    counter_ = std::make_shared<RefusalCounter>();
    spdlog::default_logger()->sinks().push_back(counter_);
  }

  void init() {
    options_.use_keyring = false;
    options_.poll_hz = 20;
    options_.audit_path = dir_.filePath(QString("audit-%1.sqlite").arg(++run_));
  }

  void aRefusedTokenStopsPollingAsksAndNeverLocksTheHostOut() {
    std::unique_ptr<node::Node> node = OpenNode(dir_.filePath("refused"), "refused1");
    QVERIFY(node);
    const QString address = AddressOf(*node);
    counter_->refusals = 0;
    counter_->lockouts = 0;
    MainWindow window(options_);
    window.show();
    QVERIFY(window.AddNode(address, "not-the-token", nullptr));
    const ClusterState* state = window.State();
    QTRY_VERIFY_WITH_TIMEOUT(state->Node(0).health == NodeHealth::kTokenRefused, 10000);

    // The state cell says so, and the tooltip gives the node's reason.
    const QAbstractItemModel* model = window.overview_view()->Model();
    QCOMPARE(model->index(0, OverviewModel::kState).data().toString(), QString("token refused"));
    const QString tip = model->index(0, OverviewModel::kState).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains("the admin token is not valid") && tip.contains(address),
             qPrintable(tip));

    // It asks for another token without blocking the event loop.
    QTRY_VERIFY_WITH_TIMEOUT(OpenTokenDialog(window) != nullptr, 5000);
    QCOMPARE(OpenTokenDialog(window)->Node(), 0);

    // Polling with the refused token stopped: over what would be 40 rounds at 20 Hz the node
    // logs no further refusal, and never a lockout.
    QVERIFY(counter_->refusals >= 1);
    const int refusals = counter_->refusals;
    QTest::qWait(2000);
    QCOMPARE(counter_->refusals.load(), refusals);
    QVERIFY(refusals <= 2);
    QCOMPARE(counter_->lockouts.load(), 0);
    QCOMPARE(state->Node(0).health, NodeHealth::kTokenRefused);

    // railyardctl from this host with the right token is still let in.
    QProcess ctl;
    ctl.start(BuiltProgram("railyardctl"), {"status", "-n", address, "--token", kViewerToken});
    QVERIFY(ctl.waitForFinished(30000));
    QVERIFY2(ctl.exitCode() == 0, ctl.readAllStandardError().constData());

    // The right token, given in the dialog, resumes polling.
    TokenDialog* dialog = OpenTokenDialog(window);
    dialog->TokenField()->setText(kViewerToken);
    dialog->accept();
    QTRY_VERIFY_WITH_TIMEOUT(state->Node(0).health == NodeHealth::kServing, 10000);
    QCOMPARE(window.live_source()->Token(0), QString(kViewerToken));
    QCOMPARE(counter_->lockouts.load(), 0);
    window.live_source()->Stop();
  }

  void tooltipsAppearOverTheOverviewAndTheNodeList() {
    std::unique_ptr<node::Node> node = OpenNode(dir_.filePath("tips"), "tips1");
    QVERIFY(node);
    MainWindow window(options_);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.AddNode(AddressOf(*node), "not-the-token", nullptr));
    QTRY_VERIFY_WITH_TIMEOUT(window.State()->Node(0).health == NodeHealth::kTokenRefused, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(OpenTokenDialog(window) != nullptr, 5000);
    OpenTokenDialog(window)->reject();

    // Another window has the focus, as the operator's terminal beside the console would.
    QWidget terminal;
    terminal.resize(200, 100);
    terminal.show();
    terminal.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&terminal));
    QVERIFY(!window.isActiveWindow());

    QTableView* table = window.overview_view()->Table();
    const QRect state_cell = table->visualRect(table->model()->index(0, OverviewModel::kState));
    QVERIFY(!state_cell.isEmpty());
    const QString over_table = HoverText(table, state_cell.center());
    QVERIFY2(over_table.contains("token refused") && over_table.contains("not valid"),
             qPrintable(over_table));
    QListView* list = window.NodeList();
    const QRect row = list->visualRect(list->model()->index(0, OverviewModel::kName));
    const QString over_list = HoverText(list, row.center());
    QVERIFY2(over_list.contains("token refused"), qPrintable(over_list));

    // A help event straight to the view shows the same text.
    QToolTip::hideText();
    QHelpEvent help(QEvent::ToolTip, row.center(), list->viewport()->mapToGlobal(row.center()));
    QCoreApplication::sendEvent(list->viewport(), &help);
    QVERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), over_list);
    QToolTip::hideText();
    window.live_source()->Stop();
  }

  void lastKnownFiguresTurnGrey() {
    std::unique_ptr<node::Node> node = OpenNode(dir_.filePath("grey"), "grey1");
    QVERIFY(node);
    MainWindow window(options_);
    QVERIFY(window.AddNode(AddressOf(*node), kViewerToken, nullptr));
    const ClusterState* state = window.State();
    QTRY_VERIFY_WITH_TIMEOUT(state->Node(0).health == NodeHealth::kServing, 10000);
    const QAbstractItemModel* model = window.overview_view()->Model();
    const QModelIndex requests = model->index(0, OverviewModel::kRequests);
    QVERIFY(!requests.data(Qt::ForegroundRole).isValid());  // Serving: the view's own colour.

    // Gone: unreachable, with the reason in its state cell, and its figures grey.
    node->Shutdown(std::chrono::milliseconds(200));
    node.reset();
    QTRY_VERIFY_WITH_TIMEOUT(state->Node(0).health == NodeHealth::kUnreachable, 10000);
    QVERIFY(state->Node(0).telemetry);
    const QString text = model->index(0, OverviewModel::kState).data().toString();
    QVERIFY2(text.startsWith("unreachable: ") && text.size() > 20, qPrintable(text));
    for (int column : {int(OverviewModel::kRole), int(OverviewModel::kRequests),
                       int(OverviewModel::kP99), int(OverviewModel::kSlots)}) {
      const QVariant colour = model->index(0, column).data(Qt::ForegroundRole);
      QVERIFY2(colour.isValid(), qPrintable(QString("column %1").arg(column)));
      QCOMPARE(colour.value<QColor>(), HealthColor(NodeHealth::kStale));
    }
    window.live_source()->Stop();
  }

  void editTokenAndRemoveNode() {
    std::unique_ptr<node::Node> first = OpenNode(dir_.filePath("edit1"), "edit1");
    std::unique_ptr<node::Node> second = OpenNode(dir_.filePath("edit2"), "edit2");
    QVERIFY(first && second);
    MainWindow window(options_);
    window.show();
    QVERIFY(window.AddNode(AddressOf(*first), kViewerToken, nullptr));
    QVERIFY(window.AddNode(AddressOf(*second), kViewerToken, nullptr));
    const ClusterState* state = window.State();
    QTRY_VERIFY_WITH_TIMEOUT(state->Node(0).health == NodeHealth::kServing &&
                                 state->Node(1).health == NodeHealth::kServing,
                             10000);
    // Both in the Node menu's reach and in the node list's context menu.
    QVERIFY(window.NodeList()->actions().contains(window.EditTokenAction()));
    QVERIFY(window.NodeList()->actions().contains(window.RemoveNodeAction()));
    QCOMPARE(window.NodeList()->contextMenuPolicy(), Qt::ActionsContextMenu);

    // Edit token on the selected node: the operator token, which enables actions.
    window.SetCurrentNode(1);
    QVERIFY(window.EditTokenAction()->isEnabled());
    window.EditTokenAction()->trigger();
    TokenDialog* dialog = OpenTokenDialog(window);
    QVERIFY(dialog);
    QCOMPARE(dialog->Node(), 1);
    dialog->TokenField()->setText(kOperatorToken);
    dialog->accept();
    QCOMPARE(window.live_source()->Token(1), QString(kOperatorToken));
    QCOMPARE(window.live_source()->Token(0), QString(kViewerToken));
    QTRY_VERIFY_WITH_TIMEOUT(state->Node(1).health == NodeHealth::kServing, 10000);

    // Remove the first node: the second one stays watched, with its token, at index 0; the
    // removed node's stored token goes too, and the status bar says so.
    const QString first_address = AddressOf(*first);
    QCOMPARE(window.token_store()->Token(first_address), QString(kViewerToken));
    window.SetCurrentNode(0);
    window.RemoveNodeAction()->trigger();
    QVERIFY(window.token_store()->Token(first_address).isEmpty());
    QCOMPARE(window.token_store()->Token(AddressOf(*second)), QString(kOperatorToken));
    QVERIFY2(window.statusBar()->currentMessage().contains("token was forgotten"),
             qPrintable(window.statusBar()->currentMessage()));
    QCOMPARE(state->NodeCount(), 1);
    QCOMPARE(state->Node(0).admin_address, AddressOf(*second));
    QCOMPARE(window.overview_view()->Model()->rowCount(), 1);
    QCOMPARE(window.live_source()->Token(0), QString(kOperatorToken));
    QCOMPARE(window.CurrentNode(), 0);
    const uint64_t sequence = state->Node(0).telemetry ? state->Node(0).telemetry->sequence() : 0;
    QTRY_VERIFY_WITH_TIMEOUT(state->Node(0).telemetry &&
                                 state->Node(0).telemetry->sequence() > sequence + 2 &&
                                 state->Node(0).name == "edit2",
                             10000);
    window.RemoveNodeAction()->trigger();
    QCOMPARE(state->NodeCount(), 0);
    QVERIFY(!window.RemoveNodeAction()->isEnabled());
    window.live_source()->Stop();
  }

  void withoutAKeyringTheStatusBarSaysWhereTokensAreKept() {
    // Offscreen CI has no secret service; where one answers, there is nothing to explain.
    railyard::ui::TokenStore store(true);
    QTRY_VERIFY_WITH_TIMEOUT(store.backend() != railyard::ui::TokenStore::Backend::kProbing, 20000);
    if (store.backend() == railyard::ui::TokenStore::Backend::kKeyring) {
      QSKIP("a keyring answered on this machine");
    }
    // Plain words in the status bar, once; the keyring library's own error only in the tooltip.
    const QString text = store.BackendDescription();
    QCOMPARE(text, QString("Tokens: this session only"));
    const QString details = store.BackendDetails();
    QVERIFY2(details.startsWith("Tokens you enter are kept in memory only"), qPrintable(details));
    QVERIFY(details.contains("asked again in the next session"));
  }

  void addingAWatchedAddressNeverReplacesItsToken() {
    std::unique_ptr<node::Node> node = OpenNode(dir_.filePath("dup"), "dup1");
    QVERIFY(node);
    MainWindow window(options_);
    const QString address = AddressOf(*node);
    QVERIFY(window.AddNode(address, kViewerToken, nullptr));
    QTRY_VERIFY_WITH_TIMEOUT(window.State()->Node(0).health == NodeHealth::kServing, 10000);
    QString error;
    QVERIFY(!window.AddNode(address, "wrong-token", &error));
    QVERIFY2(error.contains("already watched") && error.contains("Edit token"), qPrintable(error));
    QCOMPARE(window.live_source()->Token(0), QString(kViewerToken));
    QCOMPARE(window.State()->NodeCount(), 1);
    // The same address again with its own token, or none, changes nothing and is no error.
    QVERIFY(window.AddNode(address, kViewerToken, &error));
    QVERIFY(window.AddNode(" " + address, {}, &error));
    QCOMPARE(window.State()->NodeCount(), 1);
    QCOMPARE(window.live_source()->Token(0), QString(kViewerToken));
    QCOMPARE(window.State()->Node(0).health, NodeHealth::kServing);
    window.live_source()->Stop();
  }

 private:
  QTemporaryDir dir_;
  std::shared_ptr<RefusalCounter> counter_;
  MainWindow::Options options_;
  int run_ = 0;
};

RAILYARD_QTEST_MAIN(NodeHealthTest)
#include "tst_node_health.moc"
