// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/main_window.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDate>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QGuiApplication>
#include <QLabel>
#include <QListView>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <utility>

#include "core/cluster/replication_names.h"
#include "core/cluster/rolling_restart.h"
#include "core/cluster/time_span.h"
#include "ui/actions/action_controller.h"
#include "ui/compare/compare_window.h"
#include "ui/models/alert_model.h"
#include "ui/models/overview_model.h"
#include "ui/models/replication_model.h"
#include "ui/session/session.h"
#include "ui/session/token_store.h"
#include "ui/shell/alert_notifier.h"
#include "ui/shell/column_fit.h"
#include "ui/shell/connect_dialog.h"
#include "ui/shell/find_document_dialog.h"
#include "ui/shell/help_dialogs.h"
#include "ui/shell/one_column_list_view.h"
#include "ui/shell/prometheus_dialog.h"
#include "ui/shell/recent_files.h"
#include "ui/shell/rolling_restart_dialog.h"
#include "ui/shell/start_page.h"
#include "ui/shell/tab_navigation.h"
#include "ui/shell/token_dialog.h"
#include "ui/shell/view_export.h"
#include "ui/sources/live_source.h"
#include "ui/sources/prometheus_range.h"
#include "ui/sources/recorder.h"
#include "ui/sources/replay_source.h"
#include "ui/views/alerts_view.h"
#include "ui/views/bloom_view.h"
#include "ui/views/compaction_view.h"
#include "ui/views/flow_view.h"
#include "ui/views/incident_view.h"
#include "ui/views/index_stack_widget.h"
#include "ui/views/overview_view.h"
#include "ui/views/qcustomplot_include.h"
#include "ui/views/replication_view.h"
#include "ui/views/slot_matrix_view.h"
#include "ui/views/throughput_view.h"
#include "ui/views/timeline_widget.h"

namespace railyard::ui {

namespace {

constexpr char kGeometryKey[] = "window/geometry";
constexpr char kNotifyKey[] = "alerts/desktop_notifications";
constexpr char kThroughputWindowKey[] = "throughput/window_minutes";
constexpr char kLagWindowKey[] = "replication/window_minutes";
constexpr char kStateKey[] = "window/state";
constexpr char kRangeKey[] = "charts/range_unix_ms";  // [from, to]; absent while following.
// As far back as a node's flight recorder keeps its day (node/flight_recorder.h).
constexpr qint64 kSavedRangeKeptMs = 24LL * 60 * 60 * 1000;
// Raised when the docks or toolbars change so much that an old saved state no longer fits.
constexpr int kLayoutVersion = 1;

// The splitters of every tab by a settings key: "window/splitters/<tab page's object name>/<n>",
// n counting the page's splitters in creation order (the same from one run to the next).
QList<QPair<QString, QSplitter*>> SplittersByKey(const QTabWidget* tabs) {
  QList<QPair<QString, QSplitter*>> splitters;
  for (int i = 0; i < tabs->count(); ++i) {
    const QWidget* page = tabs->widget(i);
    const QList<QSplitter*> found = page->findChildren<QSplitter*>();
    for (int n = 0; n < found.size(); ++n) {
      splitters.append(
          {QStringLiteral("window/splitters/%1/%2").arg(page->objectName()).arg(n), found[n]});
    }
  }
  return splitters;
}

}  // namespace

MainWindow::MainWindow(const Options& options, QWidget* parent)
    : QMainWindow(parent),
      options_(options),
      recent_(options.remember_recent),
      session_(new Session(options)),
      state_(session_->State()),
      actions_(session_->action_controller()) {
  setWindowTitle(tr("Railyard"));
  source_arguments_ = options.source_arguments;
  source_recording_ = options.source_recording;
  // Qt shows tooltips only over the active window by default; the console is often watched
  // beside the terminal that has the focus, and its reasons ("token refused", why unreachable)
  // live in tooltips. Floating docks are windows of their own and get the same below.
  setAttribute(Qt::WA_AlwaysShowToolTips);
  // The icon comes from the application (QApplication::setWindowIcon in app/railyard).
  actions_->SetDialogParent(this);
  // A success is told in passing (the audit log keeps it); failures open a dialog.
  connect(actions_, &ActionController::Succeeded, this,
          [this](const QString& text) { statusBar()->showMessage(text, 10000); });
  BuildViews();
  BuildActions();

  mode_label_ = new QLabel(this);
  read_only_label_ = new QLabel(this);
  keyring_label_ = new QLabel(this);
  record_label_ = new QLabel(this);
  statusBar()->addPermanentWidget(record_label_);
  statusBar()->addPermanentWidget(mode_label_);
  statusBar()->addPermanentWidget(read_only_label_);
  statusBar()->addPermanentWidget(keyring_label_);
  connect(token_store(), &TokenStore::BackendChanged, this, &MainWindow::UpdateStatus);
  connect(recorder(), &Recorder::RecordingChanged, this, &MainWindow::UpdateStatus);
  connect(replay_source(), &ReplaySource::SpeedChanged, this, &MainWindow::UpdateStatus);
  auto* status_timer = new QTimer(this);
  status_timer->start(1000);
  connect(status_timer, &QTimer::timeout, this, &MainWindow::UpdateStatus);

  connect(session_, &Session::TokenRefused, this, &MainWindow::OnTokenRefused);
  // The charts opened with the nodes' own past: said once, with how far back it goes.
  connect(live_source(), &LiveSource::Backfilled, this,
          [this](int nodes, qint64 snapshots, qint64 from_ms) {
            if (nodes == 0) return;
            const QString whose = nodes == 1 ? tr("1 node's") : tr("%1 nodes'").arg(nodes);
            statusBar()->showMessage(tr("Charts since %1 from %2 flight recorders (%3 snapshots)")
                                         .arg(ClockText(from_ms), whose)
                                         .arg(snapshots),
                                     15000);
          });
  // Then each node's older past, or a stretch the console missed, from its recorder.
  connect(live_source(), &LiveSource::GapFilled, this,
          [this](int node, qint64 snapshots, qint64 from_ms, qint64 to_ms) {
            if (node < 0 || node >= state_->NodeCount()) return;
            statusBar()->showMessage(
                tr("%1: its past from %2 to %3 from its flight recorder "
                   "(%4 snapshots)")
                    .arg(state_->Node(node).name, MomentText(from_ms), ClockText(to_ms))
                    .arg(snapshots),
                15000);
          });
  connect(session_, &Session::AboutToReset, this, &MainWindow::OnSessionReset);
  connect(session_, &Session::SourceChanged, this, &MainWindow::OnSourceChanged);
  connect(session_, &Session::TokensChanged, this, &MainWindow::UpdateActionsEnabled);
  connect(state_, &ClusterState::NodeAdded, this, [this](int index) {
    if (current_node_ < 0) {
      SetCurrentNode(index);
    } else if (index == current_node_) {
      SetCurrentNode(index);  // A replay seek rebuilt the nodes: keep the selection.
    }
  });
  UpdateStatus();
  UpdateActionsEnabled();
  RestoreLayout();
  // A saved layout may have had the replay's dock open; nothing is replayed yet.
  timeline_dock_->setVisible(IsReplay());
  // Children are deleted in the order they were added: the session, whose state every model and
  // view reads, goes last.
  session_->setParent(this);
}

MainWindow::~MainWindow() { session_->Stop(); }

ClusterState* MainWindow::State() const { return state_; }
LiveSource* MainWindow::live_source() const { return session_->live_source(); }
ReplaySource* MainWindow::replay_source() const { return session_->replay_source(); }
Recorder* MainWindow::recorder() const { return session_->recorder(); }
TokenStore* MainWindow::token_store() const { return session_->token_store(); }
ActionController* MainWindow::action_controller() const { return actions_; }
bool MainWindow::IsReplay() const { return session_->IsReplay(); }

void MainWindow::closeEvent(QCloseEvent* event) {
  if (rolling_restart_dialog_ && rolling_restart_dialog_->Running()) {
    // Quitting stops the run after the step under way; the operator should know, and may wait.
    QMessageBox box(QMessageBox::Question, tr("Rolling restart under way"),
                    tr("A rolling restart is under way. Quitting stops it after the step under "
                       "way (a node being restarted is waited for, or its command ended), and "
                       "the nodes not yet restarted are left as they are."),
                    QMessageBox::Cancel, this);
    box.setObjectName(QStringLiteral("quitDuringRollingRestart"));
    QPushButton* quit = box.addButton(tr("Stop it and quit"), QMessageBox::AcceptRole);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    if (box.clickedButton() != quit) {
      event->ignore();
      return;
    }
    rolling_restart_dialog_->Stop();
  }
  SaveLayout();
  QMainWindow::closeEvent(event);
}

void MainWindow::SaveLayout() const {
  if (!options_.remember_layout) return;
  QSettings settings;
  settings.setValue(QLatin1String(kGeometryKey), saveGeometry());
  settings.setValue(QLatin1String(kStateKey), saveState(kLayoutVersion));
  for (const auto& [key, splitter] : SplittersByKey(tabs_)) {
    settings.setValue(key, splitter->saveState());
  }
  settings.setValue(QLatin1String(kThroughputWindowKey), throughput_->WindowMinutes());
  settings.setValue(QLatin1String(kLagWindowKey), replication_->WindowMinutes());
  if (const std::optional<TimeWindow> range = throughput_->FixedRange()) {
    settings.setValue(QLatin1String(kRangeKey), QVariantList{range->from_ms, range->to_ms});
  } else {
    settings.remove(QLatin1String(kRangeKey));
  }
}

void MainWindow::RestoreLayout() {
  // A first start: the node list narrow (the Overview says more about each node).
  auto defaults = [this] {
    resize(1280, 800);
    if (auto* nodes = findChild<QDockWidget*>(QStringLiteral("nodes"))) {
      resizeDocks({nodes}, {fontMetrics().horizontalAdvance(QLatin1Char('x')) * 22},
                  Qt::Horizontal);
    }
  };
  if (!options_.remember_layout) {
    defaults();
    return;
  }
  const QSettings settings;
  if (!restoreGeometry(settings.value(QLatin1String(kGeometryKey)).toByteArray())) defaults();
  restoreState(settings.value(QLatin1String(kStateKey)).toByteArray(), kLayoutVersion);
  for (const auto& [key, splitter] : SplittersByKey(tabs_)) {
    if (settings.contains(key)) splitter->restoreState(settings.value(key).toByteArray());
  }
  if (settings.contains(QLatin1String(kThroughputWindowKey))) {
    throughput_->SetWindowMinutes(settings.value(QLatin1String(kThroughputWindowKey)).toInt());
  }
  if (settings.contains(QLatin1String(kLagWindowKey))) {
    replication_->SetWindowMinutes(settings.value(QLatin1String(kLagWindowKey)).toInt());
  }
  const QVariantList range = settings.value(QLatin1String(kRangeKey)).toList();
  if (range.size() == 2) saved_range_ = TimeWindow{range[0].toLongLong(), range[1].toLongLong()};
}

bool MainWindow::ShowSavedRange() {
  // While the day behind that the nodes keep still holds it (older, a live console would show
  // empty charts); said in the status bar, as the charts are not live.
  if (!saved_range_ ||
      saved_range_->to_ms < QDateTime::currentMSecsSinceEpoch() - kSavedRangeKeptMs) {
    return false;
  }
  ShowRange(saved_range_->from_ms, saved_range_->to_ms);
  statusBar()->showMessage(
      tr("Charts held on %1 to %2, as when the console closed: Follow or a "
         "double-click on a chart goes live")
          .arg(MomentText(saved_range_->from_ms), MomentText(saved_range_->to_ms)),
      15000);
  return true;
}

void MainWindow::BuildViews() {
  // The views draw the session's models; none makes its own.
  const Session::Models& models = session_->models();
  overview_ = new OverviewView(models.overview, this);
  slots_ = new SlotMatrixView(models.slots, this);
  compaction_ = new CompactionView(models.compaction, this);
  connect(compaction_, &CompactionView::CompactRequested, actions_, &ActionController::Compact);
  bloom_ = new BloomView(models.bloom, this);
  throughput_ = new ThroughputView(models.throughput, this);
  replication_ = new ReplicationView(models.replication, models.replication_lag, this);
  replication_->SetEvents(models.throughput);
  QWidget* audit = actions_->CreateAuditLogView(this);

  tabs_ = new QTabWidget(this);
  tabs_->addTab(overview_, tr("Overview"));
  tabs_->addTab(slots_, tr("Slots"));
  tabs_->addTab(new FlowView(models.flow, this), tr("Flow"));
  tabs_->addTab(compaction_, tr("Compaction"));
  tabs_->addTab(bloom_, tr("Bloom"));
  tabs_->addTab(throughput_, tr("Throughput"));
  tabs_->addTab(replication_, tr("Replication"));
  alerts_ = new AlertsView(models.alerts, this);
  notifier_ = new AlertNotifier(models.alerts, QDBusConnection::sessionBus(), this);
  connect(session_, &Session::SourceChanged, notifier_,
          [this] { notifier_->SetWatchingLive(!session_->IsReplay()); });
  tabs_->addTab(alerts_, tr("Alerts"));
  incidents_ = new IncidentView(models.incidents, this);
  tabs_->addTab(incidents_, tr("Incidents"));
  // An incident's moment: a replay seeks there; live, the charts centre on it.
  connect(incidents_, &IncidentView::JumpRequested, this, [this](qint64 t_ms) {
    if (session_->IsReplay()) {
      replay_source()->Seek(t_ms);
    } else {
      throughput_->ShowAround(t_ms);
      tabs_->setCurrentWidget(throughput_);
    }
  });
  tabs_->addTab(audit, tr("Audit log"));
  tabs_->setDocumentMode(true);
  // Names for the saved layout (splitter keys), independent of the tabs' translated titles.
  for (const auto& [page, name] : {std::pair<QWidget*, const char*>{overview_, "overview"},
                                   {slots_, "slots"},
                                   {compaction_, "compaction"},
                                   {bloom_, "bloom"},
                                   {throughput_, "throughput"},
                                   {replication_, "replication"},
                                   {audit, "audit"}}) {
    if (page->objectName().isEmpty()) page->setObjectName(QLatin1String(name));
  }
  central_ = new QStackedWidget(this);
  central_->addWidget(tabs_);
  if (options_.show_start_page) {
    start_page_ = new StartPage(this);
    start_page_->SetDemoAvailable(static_cast<bool>(options_.start_demo));
    central_->addWidget(start_page_);
    connect(start_page_, &StartPage::DemoRequested, this, &MainWindow::OnStartDemo);
    connect(start_page_, &StartPage::AddNodeRequested, this, &MainWindow::OnConnectDialog);
    connect(start_page_, &StartPage::OpenClusterRequested, this, &MainWindow::OnOpenCluster);
    connect(start_page_, &StartPage::OpenRecordingRequested, this, &MainWindow::OnOpenRecording);
    connect(start_page_, &StartPage::RecentClusterRequested, this, [this](const QString& path) {
      QString error;
      if (!OpenClusterFile(path, {}, &error)) QMessageBox::warning(this, tr("Railyard"), error);
    });
    connect(start_page_, &StartPage::RecentRecordingRequested, this, [this](const QString& path) {
      if (!ConfirmLeaveLive()) return;
      QString error;
      if (!OpenRecording(path, &error)) QMessageBox::warning(this, tr("Railyard"), error);
    });
  }
  setCentralWidget(central_);
  // Tables whose columns must stay in view at 1024 px and share out the width at 1600 px (the
  // slot matrix sizes its own cells, and its totals rows follow the matrix's columns).
  for (QWidget* page :
       {static_cast<QWidget*>(overview_), static_cast<QWidget*>(slots_),
        static_cast<QWidget*>(compaction_), static_cast<QWidget*>(replication_), audit}) {
    for (QTableView* table : page->findChildren<QTableView*>()) {
      if (table != slots_->Matrix() && table != slots_->Totals()) FitColumnsToWidth(table);
    }
  }
  // C11: a node's state stays readable however narrow the window; other columns give way first.
  KeepColumnWidth(overview_->Table(), OverviewModel::kState,
                  overview_->Table()->columnWidth(OverviewModel::kState));
  KeepColumnWidth(overview_->Table(), OverviewModel::kName,
                  std::min(overview_->Table()->columnWidth(OverviewModel::kName), 110));
  // And in a small window the figures an operator can do without leave whole, rather than every
  // figure being cut ("117..." for 11,700).
  DropColumnsWhenNarrow(
      replication_->Table(),
      {ReplicationModel::kRefetches, ReplicationModel::kApplyRate, ReplicationModel::kCatchUp});
  DropColumnsWhenNarrow(overview_->Table(),
                        {OverviewModel::kBloom, OverviewModel::kIndexes, OverviewModel::kRetries,
                         OverviewModel::kClientP99, OverviewModel::kStoreRole});
  const QFontMetrics metrics(replication_->Table()->font());
  KeepColumnWidth(
      replication_->Table(), ReplicationModel::kState,
      metrics.horizontalAdvance(tr("unknown (node unreachable)")) + metrics.height() + 24);
  // Queue positions grow after the columns were measured (when the rows came): at 1024 px the
  // demo's head read "1, 312,6...". They keep room for twelve digits (under a terabyte of queue);
  // the optional columns above leave first.
  const int position_width =
      metrics.horizontalAdvance(QLocale().toString(qulonglong(999'999'999'999))) + 16;
  KeepColumnWidth(replication_->Table(), ReplicationModel::kApplied, position_width);
  KeepColumnWidth(replication_->Table(), ReplicationModel::kHead, position_width);

  // The node list: every node with its health colour; selecting one drives the per-node views.
  // In natural name order (backend-2 before backend-10), through a sorting proxy: rows of the
  // list are not node indexes.
  node_list_order_ = new OverviewFilterModel(this);
  node_list_order_->setSourceModel(overview_->Model());
  node_list_order_->sort(OverviewModel::kName, Qt::AscendingOrder);
  node_list_ = new OneColumnListView(this);
  node_list_->setModel(node_list_order_);
  node_list_->setModelColumn(OverviewModel::kName);
  node_list_->setUniformItemSizes(true);
  node_list_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  auto* nodes_dock = new QDockWidget(tr("Nodes"), this);
  nodes_dock->setObjectName(QStringLiteral("nodes"));
  nodes_dock->setWidget(node_list_);
  nodes_dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  nodes_dock->setAttribute(Qt::WA_AlwaysShowToolTips);
  addDockWidget(Qt::LeftDockWidgetArea, nodes_dock);
  connect(node_list_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) SetCurrentNode(node_list_order_->mapToSource(current).row());
          });
  // Several nodes selected (Ctrl or Shift and a click) in either list: drain and undrain act
  // on all of them.
  node_list_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  connect(node_list_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    QVector<int> nodes;
    // A list selects one column of the model's rows: selectedRows() would find no whole row.
    for (const QModelIndex& cell : node_list_->selectionModel()->selectedIndexes()) {
      const int node = node_list_order_->mapToSource(cell).row();
      if (!nodes.contains(node)) nodes << node;
    }
    actions_->SetSelectedNodes(nodes);
  });
  connect(overview_, &OverviewView::NodesSelected, actions_, &ActionController::SetSelectedNodes);
  connect(overview_, &OverviewView::NodeSelected, this, &MainWindow::SetCurrentNode);
  connect(replication_, &ReplicationView::NodeSelected, this, &MainWindow::SetCurrentNode);

  timeline_ = new TimelineWidget(replay_source(), this);
  timeline_->SetAlertScan({session_->models().alerts->rules(), state_->StaleAfterMs()});
  timeline_dock_ = new QDockWidget(tr("Replay"), this);
  timeline_dock_->setObjectName(QStringLiteral("replay"));
  timeline_dock_->setWidget(timeline_);
  timeline_dock_->setFeatures(QDockWidget::DockWidgetMovable);
  addDockWidget(Qt::BottomDockWidgetArea, timeline_dock_);
  timeline_dock_->hide();
  DescribeCustomWidgets();
}

void MainWindow::DescribeCustomWidgets() {
  // Drawn by hand or by QCustomPlot, these say nothing to a screen reader by themselves.
  struct Described {
    QWidget* widget;
    QString name;
    QString description;
  };
  for (const Described& d : {
           Described{compaction_->IndexStack(), tr("Index stack"),
                     tr("The selected node's on-disk indexes, newest on top, sized by entries; "
                        "select adjacent indexes to compact them")},
           Described{timeline_, tr("Replay timeline"),
                     tr("Play, pause, speed and position of the recording, and its events")},
           Described{bloom_->Plot(), tr("Bloom page heatmap"),
                     tr("Usefulness of each Bloom filter page, index by page; resident pages are "
                        "marked")},
           Described{slots_->Matrix(), tr("Slot matrix"),
                     tr("Connection slots held by each client on each server")},
       }) {
    d.widget->setAccessibleName(d.name);
    d.widget->setAccessibleDescription(d.description);
  }
}

void MainWindow::BuildActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* connect_action = file->addAction(tr("&Add node..."), this, &MainWindow::OnConnectDialog);
  connect_action->setShortcut(QKeySequence(tr("Ctrl+N")));
  QAction* open_cluster =
      file->addAction(tr("&Open cluster file..."), this, &MainWindow::OnOpenCluster);
  open_cluster->setShortcut(QKeySequence::Open);
  recent_.AttachMenu(file->addMenu(tr("Recent clusters")), RecentFiles::Kind::kCluster, this,
                     [this](const QString& path) {
                       QString error;
                       if (!OpenClusterFile(path, {}, &error)) {
                         QMessageBox::warning(this, tr("Railyard"), error);
                       }
                     });
  QAction* open_recording =
      file->addAction(tr("Open &recording..."), this, &MainWindow::OnOpenRecording);
  open_prometheus_ =
      file->addAction(tr("Open &Prometheus range..."), this, &MainWindow::OnOpenPrometheusRange);
  open_prometheus_->setToolTip(
      tr("A time range of the nodes' /metrics from a Prometheus server "
         "(Thanos, Mimir, VictoriaMetrics too), replayed"));
  file->addAction(tr("&Compare recordings..."), this, [this] {
    auto* compare = new CompareWindow(this);  // A window of its own; closing it deletes it.
    compare->setAttribute(Qt::WA_DeleteOnClose);
    compare->show();
  });
  recent_.AttachMenu(file->addMenu(tr("Recent recordings")), RecentFiles::Kind::kRecording, this,
                     [this](const QString& path) {
                       if (!ConfirmLeaveLive()) return;
                       QString error;
                       if (!OpenRecording(path, &error)) {
                         QMessageBox::warning(this, tr("Railyard"), error);
                       }
                     });
  back_to_live_ = file->addAction(tr("&Back to live"), this, [this] {
    QString error;
    if (!BackToLive(&error)) QMessageBox::warning(this, tr("Railyard"), error);
  });
  back_to_live_->setShortcut(QKeySequence(tr("Ctrl+Shift+B")));
  back_to_live_->setToolTip(tr("Watch the live cluster again that the replay replaced"));
  back_to_live_->setEnabled(false);
  back_to_live_->setVisible(false);
  demo_info_ = file->addAction(tr("&Demo cluster..."), this, [this] { ShowDemoInfo(); });
  demo_info_->setToolTip(tr("The demo's admin addresses and token, for railyardctl"));
  demo_info_->setEnabled(false);
  file->addSeparator();
  export_ = file->addAction(tr("&Export view..."), this, &MainWindow::OnExport);
  export_->setShortcut(QKeySequence(tr("Ctrl+Shift+E")));
  export_->setToolTip(tr("Write the current tab as a PNG image or as CSV"));
  file->addSeparator();
  record_ = file->addAction(tr("Record"));
  record_->setCheckable(true);
  record_->setShortcut(QKeySequence(tr("Ctrl+Shift+R")));
  record_->setToolTip(tr("Record the live cluster's telemetry and actions into a recording file"));
  connect(record_, &QAction::toggled, this, &MainWindow::OnRecordToggled);
  connect(recorder(), &Recorder::RecordingChanged, this, [this](bool on) {
    const QSignalBlocker block(record_);
    record_->setChecked(on);
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QToolBar* bar = addToolBar(tr("Actions"));
  bar->setObjectName(QStringLiteral("actions"));
  bar->addAction(connect_action);
  bar->addAction(open_cluster);
  bar->addAction(open_recording);
  bar->addAction(back_to_live_);  // Shown only while there is a live cluster to go back to.
  bar->addSeparator();
  bar->addWidget(new QLabel(tr(" Node: "), this));
  node_selector_ = new QComboBox(this);
  node_selector_->setModel(overview_->Model());
  node_selector_->setModelColumn(OverviewModel::kName);
  node_selector_->setMinimumContentsLength(14);
  node_selector_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  bar->addWidget(node_selector_);
  connect(node_selector_, &QComboBox::activated, this, &MainWindow::SetCurrentNode);
  bar->addSeparator();
  // The action controller's own actions: it confirms, runs them off the GUI thread, audits,
  // and enables them only when the selected node can be acted on.
  drain_ = actions_->DrainAction();
  undrain_ = actions_->UndrainAction();
  compact_ = actions_->CompactAllAction();
  flush_ = actions_->FlushAction();
  for (QAction* a : {drain_, undrain_, compact_, flush_}) bar->addAction(a);
  QMenu* node_menu = menuBar()->addMenu(tr("&Node"));
  for (QAction* a : {drain_, undrain_, compact_, flush_}) node_menu->addAction(a);
  // On the selected node; the node list's context menu offers them too (a right click selects
  // the row first).
  edit_token_ = new QAction(tr("Edit &token..."), this);
  edit_token_->setToolTip(tr("Give the selected node another admin token"));
  connect(edit_token_, &QAction::triggered, this, [this] { EditToken(current_node_); });
  remove_node_ = new QAction(tr("&Remove node"), this);
  remove_node_->setToolTip(tr("Stop watching the selected node"));
  connect(remove_node_, &QAction::triggered, this, [this] { RemoveNode(current_node_); });
  // A demo node killed by hand (C16): started again where it was, on its data.
  restart_demo_node_ = new QAction(tr("Re&start demo node"), this);
  restart_demo_node_->setToolTip(
      tr("Start the selected demo node again once its process has ended (killed or crashed)"));
  connect(restart_demo_node_, &QAction::triggered, this, [this] {
    QString error;
    if (!RestartDemoNode(current_node_, &error)) {
      QMessageBox::warning(this, tr("Railyard"), error);
    }
  });
  restart_demo_node_->setVisible(static_cast<bool>(options_.restart_demo_node));
  // Where every node holds one document: live only (a recording holds no documents).
  find_document_ = new QAction(tr("&Find document..."), this);
  find_document_->setShortcut(QKeySequence(tr("Ctrl+Shift+K")));  // K: key.
  find_document_->setToolTip(
      tr("Ask every node where it holds a document: its entry, position and checksum, and which "
         "nodes are behind"));
  connect(find_document_, &QAction::triggered, this, [this] {
    if (!find_document_dialog_) {
      find_document_dialog_ =
          new FindDocumentDialog([this] { return session_->CopyTargets(); }, this);
    }
    find_document_dialog_->show();
    find_document_dialog_->raise();
    find_document_dialog_->activateWindow();
  });
  find_document_->setEnabled(session_->mode() == Session::Mode::kLive);
  rolling_restart_ = new QAction(tr("&Rolling restart..."), this);
  rolling_restart_->setToolTip(
      tr("Restart nodes one at a time: drain, wait for clients to leave, restart, wait until "
         "it serves and has caught up, undrain"));
  connect(rolling_restart_, &QAction::triggered, this, &MainWindow::OpenRollingRestart);
  node_menu->addSeparator();
  node_menu->addAction(find_document_);
  node_menu->addAction(rolling_restart_);
  node_menu->addSeparator();
  node_menu->addAction(edit_token_);
  node_menu->addAction(remove_node_);
  node_menu->addAction(restart_demo_node_);
  node_list_->setContextMenuPolicy(Qt::ActionsContextMenu);
  node_list_->addAction(edit_token_);
  node_list_->addAction(remove_node_);
  node_list_->addAction(restart_demo_node_);
  bar->addSeparator();
  bar->addAction(record_);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  AddTabNavigation(tabs_, view);
  // Alerts that fire are told to the desktop (AlertNotifier); the choice is kept with the layout.
  view->addSeparator();
  notify_ = view->addAction(tr("Desktop &notifications for alerts"));
  notify_->setCheckable(true);
  notify_->setChecked(!options_.remember_layout ||
                      QSettings().value(QLatin1String(kNotifyKey), true).toBool());
  notifier_->SetEnabled(notify_->isChecked());
  connect(notify_, &QAction::toggled, this, [this](bool on) {
    notifier_->SetEnabled(on);
    if (options_.remember_layout) QSettings().setValue(QLatin1String(kNotifyKey), on);
  });
  view->addSeparator();
  QAction* copy_link = view->addAction(tr("&Copy command line for this view"), this, [this] {
    QGuiApplication::clipboard()->setText(ViewCommandLineText());
    statusBar()->showMessage(
        tr("Copied: a railyard command line that opens this view (no tokens in it)"), 8000);
  });
  copy_link->setShortcut(QKeySequence(tr("Ctrl+Shift+L")));
  copy_link->setToolTip(
      tr("The source, tab, chart window and replay position, as a command "
         "line to keep or share"));
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* shortcuts = help->addAction(tr("&Keyboard shortcuts"), this,
                                       [this] { CreateShortcutsDialog(menuBar(), this)->show(); });
  shortcuts->setShortcut(QKeySequence::HelpContents);
  help->addAction(tr("&Glossary"), this, [this] { CreateGlossaryDialog(this)->show(); });
}

bool MainWindow::BackToLive(QString* error) {
  if (!left_live_ || session_->mode() == Session::Mode::kLive) {
    if (error) *error = tr("There is no live cluster to go back to.");
    return false;
  }
  const LeftLive live = *left_live_;  // Opening resets the session, which would replace it.
  const QString token =
      live.nodes.empty() ? QString() : QString::fromStdString(live.nodes[0].token);
  if (!live.cluster_file.isEmpty() && !OpenClusterFile(live.cluster_file, token, error)) {
    return false;
  }
  // Nodes added by address (and after the file's): each with the token it had, by its name.
  for (const cluster::CopyTarget& node : live.nodes) {
    const QString address = QString::fromStdString(node.admin.ToString());
    // (The replay's nodes carry the same addresses: only live ones are there already.)
    if (session_->mode() == Session::Mode::kLive && state_->IndexOfAddress(address) >= 0) {
      continue;
    }
    if (!AddNode(address, QString::fromStdString(node.token), error,
                 QString::fromStdString(node.node))) {
      return false;
    }
  }
  statusBar()->showMessage(tr("Back to watching %1 live").arg(live.description), 8000);
  return true;
}

void MainWindow::OnSessionReset() {
  // Leaving a live cluster: kept for Back to live (tokens stay in memory, as they were).
  if (session_->mode() == Session::Mode::kLive && state_->NodeCount() > 0) {
    left_live_ =
        LeftLive{live_cluster_file_, session_->CopyTargets(), session_->SourceDescription()};
  }
  live_cluster_file_.clear();
  // Open token questions name nodes of the cluster being left.
  for (TokenDialog* open : findChildren<TokenDialog*>()) open->reject();
  current_node_ = -1;
}

void MainWindow::OnSourceChanged() {
  timeline_dock_->setVisible(IsReplay());
  if (back_to_live_) {
    // Visible first: Qt keeps an invisible action disabled whatever setEnabled said.
    const bool available = left_live_.has_value() && session_->mode() != Session::Mode::kLive;
    back_to_live_->setVisible(available);
    back_to_live_->setEnabled(available);
  }
  if (find_document_) find_document_->setEnabled(session_->mode() == Session::Mode::kLive);
  throughput_->SetRecordingSpan(IsReplay() ? replay_source()->StartMs() : 0,
                                IsReplay() ? replay_source()->EndMs() : 0);
  replication_->Follow();  // As Throughput does: a range held on another source means nothing.
  UpdateActionsEnabled();
}

bool MainWindow::AddNode(const QString& admin_address, const QString& token, QString* error,
                         const QString& name) {
  return session_->AddNode(admin_address, token, error, name);
}

bool MainWindow::SetNodeToken(int node_index, const QString& token) {
  return session_->SetNodeToken(node_index, token);
}

void MainWindow::EditToken(int node_index, const QString& reason) {
  if (session_->mode() != Session::Mode::kLive || node_index < 0 ||
      node_index >= state_->NodeCount()) {
    return;
  }
  for (TokenDialog* open : findChildren<TokenDialog*>()) {
    if (open->Node() == node_index && open->isVisible()) return;  // One question per node.
  }
  const NodeView& node = state_->Node(node_index);
  const QString label = node.name == node.admin_address
                            ? node.admin_address
                            : QStringLiteral("%1 (%2)").arg(node.name, node.admin_address);
  auto* dialog = new TokenDialog(node_index, label, reason, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this,
          [this, dialog] { SetNodeToken(dialog->Node(), dialog->Token()); });
  dialog->open();
}

void MainWindow::RemoveNode(int node_index) {
  if (session_->mode() != Session::Mode::kLive || node_index < 0 ||
      node_index >= state_->NodeCount()) {
    return;
  }
  // Open questions name nodes by index, which the removal shifts.
  for (TokenDialog* open : findChildren<TokenDialog*>()) open->reject();
  const int current = current_node_;
  current_node_ = -1;  // The rebuild re-adds the nodes; select what was selected, if it stays.
  statusBar()->showMessage(session_->RemoveNode(node_index), 10000);
  const int keep = current > node_index ? current - 1 : current == node_index ? 0 : current;
  SetCurrentNode(keep < state_->NodeCount() ? keep : state_->NodeCount() - 1);
  UpdateActionsEnabled();
}

bool MainWindow::RestartDemoNode(int node_index, QString* error) {
  const bool live_node = session_->mode() == Session::Mode::kLive && node_index >= 0 &&
                         node_index < state_->NodeCount();
  if (!live_node || !IsDemoNode(node_index) || !options_.restart_demo_node) {
    if (error) *error = tr("Only a node of this console's demo can be restarted here");
    return false;
  }
  const NodeView& node = state_->Node(node_index);
  if (!options_.restart_demo_node(node.admin_address, error)) return false;
  statusBar()->showMessage(
      tr("%1: demo node started again at %2").arg(node.name, node.admin_address), 10000);
  return true;
}

bool MainWindow::IsDemoNode(int node_index) const {
  if (node_index < 0 || node_index >= state_->NodeCount()) return false;
  const QString& address = state_->Node(node_index).admin_address;
  return std::any_of(demo_info_data_.nodes.begin(), demo_info_data_.nodes.end(),
                     [&](const DemoInfo::Node& n) { return n.admin == address; });
}

void MainWindow::OnTokenRefused(int node_index, const QString& reason) {
  statusBar()->showMessage(
      tr("%1: token refused; not polled until another token is given")
          .arg(node_index >= 0 && node_index < state_->NodeCount() ? state_->Node(node_index).name
                                                                   : QString()),
      10000);
  EditToken(node_index, reason);
}

bool MainWindow::OpenClusterFile(const QString& path, const QString& token, QString* error) {
  if (!session_->OpenClusterFile(path, token, error)) return false;
  cluster_file_ = QFileInfo(path).absoluteFilePath();
  live_cluster_file_ = cluster_file_;
  recent_.Remember(RecentFiles::Kind::kCluster, QFileInfo(path).absoluteFilePath());
  UpdateStatus();
  return true;
}

bool MainWindow::OpenRecording(const QString& path, QString* error) {
  if (!session_->OpenRecording(path, error)) return false;
  recent_.Remember(RecentFiles::Kind::kRecording, QFileInfo(path).absoluteFilePath());
  UpdateStatus();
  return true;
}

ViewLink MainWindow::CurrentViewLink() const {
  ViewLink link;
  const ReplaySource* replay = session_->replay_source();
  if (replay->IsOpen()) {
    if (!source_recording_.isEmpty() && replay->Path() == source_recording_) {
      link.source = source_arguments_;
    } else {
      link.source = {QStringLiteral("--recording"), QFileInfo(replay->Path()).absoluteFilePath()};
    }
    link.at_ms = replay->PositionMs();
  } else if (!demo_info_data_.nodes.isEmpty()) {
    link.source = {QStringLiteral("--demo")};  // Its ports are new each time.
  } else if (!cluster_file_.isEmpty()) {
    link.source = {QStringLiteral("--cluster"), cluster_file_};
  } else {
    for (int i = 0; i < state_->NodeCount(); ++i) {
      link.source << QStringLiteral("-n") << state_->Node(i).admin_address;
    }
  }
  link.tab = TabKey(tabs_, tabs_->currentIndex());
  const bool lag = tabs_->currentWidget() == replication_;
  link.window_minutes = lag ? replication_->WindowMinutes() : throughput_->WindowMinutes();
  link.range = lag ? replication_->FixedRange() : throughput_->FixedRange();
  return link;
}

bool MainWindow::ReadOnly() const { return session_->ReadOnly(); }

bool MainWindow::StartRecording(const QString& path, QString* error) {
  return session_->StartRecording(path, error);
}

void MainWindow::StopRecording() {
  const QString said = session_->StopRecording();
  if (!said.isEmpty()) statusBar()->showMessage(said, 15000);
}

void MainWindow::SetCurrentNode(int node_index) {
  if (node_index < -1 || node_index >= state_->NodeCount()) return;
  const bool changed = node_index != current_node_;
  current_node_ = node_index;
  {
    const QSignalBlocker block(node_selector_);
    node_selector_->setCurrentIndex(node_index);
  }
  if (node_index >= 0) {
    const QModelIndex row = node_list_order_->mapFromSource(
        overview_->Model()->index(node_index, OverviewModel::kName));
    if (node_list_->currentIndex() != row) {
      const QSignalBlocker block(node_list_->selectionModel());
      node_list_->setCurrentIndex(row);
    }
    overview_->SetNode(node_index);
  }
  compaction_->SetNode(node_index);
  bloom_->SetNode(node_index);
  throughput_->SetNode(node_index);
  actions_->SetCurrentNode(node_index);
  // A node made current that is not among those selected ends a selection of several.
  if (!actions_->DrainTargets().contains(node_index)) actions_->SetSelectedNodes({node_index});
  UpdateActionsEnabled();
  if (changed) Q_EMIT CurrentNodeChanged(node_index);
}

int MainWindow::TabIndex(const QString& name) const {
  for (int i = 0; i < tabs_->count(); ++i) {
    if (tabs_->tabText(i).remove(QLatin1Char('&')) == name) return i;
  }
  return -1;
}

QString MainWindow::SummaryLine() const { return session_->SummaryLine(); }

QStringList MainWindow::RecentClusters() const { return recent_.List(RecentFiles::Kind::kCluster); }

QStringList MainWindow::RecentRecordings() const {
  return recent_.List(RecentFiles::Kind::kRecording);
}

bool MainWindow::ShowsStartPage() const {
  return start_page_ && central_->currentWidget() == start_page_;
}

void MainWindow::UpdateCentralPage() {
  if (!start_page_) return;
  const bool start = session_->mode() == Session::Mode::kNone;
  if (start && central_->currentWidget() != start_page_) {
    start_page_->SetRecent(RecentClusters(), RecentRecordings());
  }
  central_->setCurrentWidget(start ? static_cast<QWidget*>(start_page_) : tabs_);
}

void MainWindow::SetDemoInfo(const DemoInfo& info) {
  demo_info_data_ = info;
  QStringList addresses;
  for (const DemoInfo::Node& node : info.nodes) addresses.append(node.admin);
  session_->KeepTokensForSessionOnly(addresses);
  demo_info_->setEnabled(!info.nodes.isEmpty());
  UpdateActionsEnabled();
  statusBar()->showMessage(tr("Demo: addresses and token in File > Demo cluster"), 15000);
}

DemoDialog* MainWindow::ShowDemoInfo() {
  if (demo_info_data_.nodes.isEmpty()) return nullptr;
  auto* dialog = findChild<DemoDialog*>();
  if (!dialog) {
    dialog = new DemoDialog(demo_info_data_, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
  }
  dialog->show();
  dialog->raise();
  return dialog;
}

void MainWindow::OnStartDemo() {
  if (!options_.start_demo) return;
  QApplication::setOverrideCursor(Qt::WaitCursor);
  QString error;
  const bool ok = options_.start_demo(&error);
  QApplication::restoreOverrideCursor();
  if (!ok) {
    QMessageBox::warning(this, tr("Railyard"), tr("The demo did not start: %1").arg(error));
    return;
  }
  ShowDemoInfo();
}

bool MainWindow::ExportCurrentView(const QString& path, QString* error) {
  QWidget* view = tabs_->currentWidget();
  if (!view) {
    if (error) *error = tr("no view to export");
    return false;
  }
  return path.endsWith(QStringLiteral(".png"), Qt::CaseInsensitive)
             ? ExportViewPng(view, path, error)
             : ExportViewCsv(view, path, error);
}

void MainWindow::OnExport() {
  const QString tab = tabs_->tabText(tabs_->currentIndex()).remove(QLatin1Char('&'));
  const QString base = QDir::home().filePath(tab.toLower().replace(QLatin1Char(' '), '_'));
  QString filter;
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export %1").arg(tab), base + QStringLiteral(".png"),
                                   tr("PNG image (*.png);;CSV table (*.csv)"), &filter);
  if (path.isEmpty()) return;
  QString error;
  if (!ExportCurrentView(path, &error)) {
    QMessageBox::warning(this, tr("Export failed"), error);
  } else {
    statusBar()->showMessage(tr("Exported %1 to %2").arg(tab, path), 10000);
  }
}

bool MainWindow::ConfirmEndReplay() {
  if (!IsReplay()) return true;
  QMessageBox box(QMessageBox::Question, tr("End the replay?"),
                  tr("Adding a node watches it live and ends the replay of %1.")
                      .arg(session_->SourceDescription()),
                  QMessageBox::Cancel, this);
  box.setObjectName(QStringLiteral("endReplay"));
  QPushButton* end = box.addButton(tr("End replay and add node"), QMessageBox::AcceptRole);
  box.setDefaultButton(QMessageBox::Cancel);
  box.exec();
  return box.clickedButton() == end;
}

bool MainWindow::ConfirmLeaveLive() {
  if (session_->mode() != Session::Mode::kLive || state_->NodeCount() == 0) return true;
  QString text =
      tr("Opening a recording stops watching %1 live.").arg(session_->SourceDescription());
  if (!demo_info_data_.nodes.isEmpty())
    text += tr(" The demo cluster's nodes and load keep running until you quit.");
  QMessageBox box(QMessageBox::Question, tr("Stop watching live?"), text, QMessageBox::Cancel,
                  this);
  box.setObjectName(QStringLiteral("leaveLive"));
  QPushButton* open = box.addButton(tr("Open a recording"), QMessageBox::AcceptRole);
  box.setDefaultButton(QMessageBox::Cancel);
  box.exec();
  return box.clickedButton() == open;
}

void MainWindow::UpdateStatus() {
  switch (session_->mode()) {
    case Session::Mode::kNone:
      mode_label_->setText(tr("No cluster: File > Add node or Open"));
      break;
    case Session::Mode::kLive:
      mode_label_->setText(tr("%1 (%2 nodes, %3 Hz)")
                               .arg(session_->SourceDescription())
                               .arg(state_->NodeCount())
                               .arg(session_->PollHz()));
      break;
    case Session::Mode::kReplay:
      mode_label_->setText(
          tr("%1 (%2x)").arg(session_->SourceDescription()).arg(replay_source()->Speed()));
      break;
  }
  read_only_label_->setText(ReadOnly() ? tr("Read-only") : tr("Actions enabled"));
  read_only_label_->setToolTip(session_->ReadOnlyReason());
  keyring_label_->setText(token_store()->BackendDescription());
  keyring_label_->setToolTip(token_store()->BackendDetails());
  const Recorder* rec = recorder();
  record_label_->setText(rec->Recording() ? tr("Recording %1 (%2 snapshots)")
                                                .arg(QFileInfo(rec->Path()).fileName())
                                                .arg(rec->SnapshotsQueued())
                                          : QString());
  record_->setEnabled(session_->mode() == Session::Mode::kLive);
  UpdateCentralPage();
}

void MainWindow::UpdateActionsEnabled() {
  const bool live_node = session_->mode() == Session::Mode::kLive && current_node_ >= 0 &&
                         current_node_ < state_->NodeCount();
  edit_token_->setEnabled(live_node);
  remove_node_->setEnabled(live_node);
  restart_demo_node_->setEnabled(live_node && options_.restart_demo_node &&
                                 IsDemoNode(current_node_));
  actions_->SetReadOnly(ReadOnly());
  if (rolling_restart_) {
    rolling_restart_->setEnabled(session_->mode() == Session::Mode::kLive && !ReadOnly());
  }
  compaction_->SetActionsEnabled(actions_->CanAct(current_node_));
  UpdateStatus();
}

void MainWindow::OpenRollingRestart() {
  if (!rolling_restart_dialog_) {
    rolling_restart_dialog_ =
        new RollingRestartDialog([this] { return session_->CopyTargets(); }, this);
    connect(
        rolling_restart_dialog_, &RollingRestartDialog::Finished, this,
        [this](bool ok, const QString& message, const QStringList& nodes, const QString& command) {
          AuditEntry entry;
          entry.unix_ms = QDateTime::currentMSecsSinceEpoch();
          entry.user = AuditLog::CurrentUser();
          entry.node_name = nodes.join(QStringLiteral(", "));
          entry.action = QStringLiteral("rolling restart");
          entry.detail = command;
          entry.result = ok ? QStringLiteral("OK") : message;
          entry.ok = ok;
          QString problem;
          if (!actions_->Audit(entry, &problem)) {
            statusBar()->showMessage(tr("Not written to the audit log: %1").arg(problem));
          }
        });
  }
  if (!rolling_restart_dialog_->Running()) {
    // In the order a rolling restart takes them: replicas first, the updater last.
    std::vector<const admin::Telemetry*> telemetry;
    for (int i = 0; i < state_->NodeCount(); ++i)
      telemetry.push_back(state_->Node(i).telemetry.get());
    QVector<RollingRestartDialog::Node> nodes;
    for (const size_t i : cluster::RestartOrder(telemetry)) {
      const admin::Telemetry* t = telemetry[i];
      const admin::DocstoreRole docstore =
          t && t->has_replication() ? t->replication().role() : admin::DocstoreRole{};
      const std::string_view role = cluster::DocstoreRoleName(docstore);
      nodes.push_back({state_->Node(int(i)).name,
                       docstore == admin::DocstoreRole{}
                           ? QString()
                           : QString::fromUtf8(role.data(), qsizetype(role.size()))});
    }
    QStringList checked;
    if (const QVector<int> selected = actions_->DrainTargets(); selected.size() > 1) {
      for (int node : selected) checked << state_->Node(node).name;
    }
    rolling_restart_dialog_->SetNodes(nodes, checked);
    rolling_restart_dialog_->SetRestartCommand(session_->RestartCommand());
  }
  rolling_restart_dialog_->show();
  rolling_restart_dialog_->raise();
  rolling_restart_dialog_->activateWindow();
}

void MainWindow::OnConnectDialog() {
  if (!ConfirmEndReplay()) return;
  ConnectDialog dialog(this);
  if (dialog.exec() != QDialog::Accepted) return;
  QString error;
  if (!AddNode(dialog.Address(), dialog.Token(), &error)) {
    QMessageBox::warning(this, tr("Railyard"), error);
  }
}

void MainWindow::OnOpenCluster() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open cluster file"), QString(),
                                   tr("Cluster files (*.textproto *.txtpb);;All files (*)"));
  if (path.isEmpty()) return;
  QString error;
  if (!OpenClusterFile(path, {}, &error)) QMessageBox::warning(this, tr("Railyard"), error);
}

void MainWindow::OnOpenRecording() {
  if (!ConfirmLeaveLive()) return;
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open recording"), QString(),
                                   tr("Recordings (*.rec *.ryrec *.sqlite);;All files (*)"));
  if (path.isEmpty()) return;
  QString error;
  if (!OpenRecording(path, &error)) QMessageBox::warning(this, tr("Railyard"), error);
}

void MainWindow::OnOpenPrometheusRange() {
  if (!ConfirmLeaveLive()) return;
  PrometheusDialog dialog(options_.remember_recent, this);
  if (dialog.exec() != QDialog::Accepted) return;
  OpenPrometheusRange(dialog.Spec());
}

void MainWindow::OpenPrometheusRange(const cluster::PrometheusSourceSpec& spec) {
  struct Fetched {
    PrometheusRange range;
    QString error;
  };
  open_prometheus_->setEnabled(false);
  const QString reading =
      tr("Reading the %1 up to %2 from %3\u2026")
          .arg(QString::fromStdString(spec.since), QString::fromStdString(spec.until),
               QString::fromStdString(spec.url));
  statusBar()->showMessage(reading);
  // The watcher belongs to the window: a window closed meanwhile drops the answer (the worker
  // ends within the queries' timeouts).
  auto* watcher = new QFutureWatcher<Fetched>(this);
  connect(watcher, &QFutureWatcher<Fetched>::finished, this, [this, watcher, spec] {
    const Fetched fetched = watcher->result();
    watcher->deleteLater();
    open_prometheus_->setEnabled(true);
    QString error = fetched.error;
    if (error.isEmpty() && OpenRecording(fetched.range.recording, &error)) {
      source_arguments_ = fetched.range.arguments;
      source_recording_ = fetched.range.recording;
      int64_t span_ms = 0;
      if (cluster::ParseTimeSpan(spec.since, &span_ms)) ShowWholeRange(span_ms);
      replay_source()->Seek(replay_source()->EndMs());
      statusBar()->showMessage(tr("%1 snapshots of %2 nodes from %3")
                                   .arg(fetched.range.snapshots)
                                   .arg(fetched.range.nodes)
                                   .arg(QString::fromStdString(spec.url)),
                               15000);
      Q_EMIT PrometheusRangeOpened({});
      return;
    }
    statusBar()->showMessage(error, 15000);
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Railyard"), error, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    Q_EMIT PrometheusRangeOpened(error);
  });
  watcher->setFuture(QtConcurrent::run([spec] {
    Fetched fetched;
    FetchPrometheusRange(spec, &fetched.range, &fetched.error);
    return fetched;
  }));
}

void MainWindow::ShowWholeRange(qint64 span_ms) {
  SetWindowMinutes(ThroughputModel::NarrowestWindowHolding(span_ms));
  tabs_->setCurrentWidget(throughput_);
}

bool MainWindow::SetWindowMinutes(int minutes) {
  if (!throughput_->SetWindowMinutes(minutes)) return false;
  replication_->SetWindowMinutes(minutes);
  return true;
}

void MainWindow::ShowRange(qint64 from_ms, qint64 to_ms) {
  throughput_->ShowRange(from_ms, to_ms);
  replication_->ShowRange(from_ms, to_ms);
}

void MainWindow::OnRecordToggled(bool on) {
  if (!on) {
    StopRecording();
    return;
  }
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Record into"), QDir::home().filePath(QStringLiteral("railyard.rec")),
      tr("Recordings (*.rec);;All files (*)"));
  QString error;
  if (path.isEmpty() || !StartRecording(path, &error)) {
    const QSignalBlocker block(record_);
    record_->setChecked(false);
    if (!error.isEmpty()) QMessageBox::warning(this, tr("Railyard"), error);
  }
}

}  // namespace railyard::ui
