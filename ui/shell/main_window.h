// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QMainWindow>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>
#include <vector>

#include "core/cluster/prometheus_recording.h"
#include "railyard/admin.pb.h"
#include "ui/models/cluster_state.h"
#include "ui/session/session.h"
#include "ui/shell/demo_dialog.h"
#include "ui/shell/recent_files.h"
#include "ui/shell/view_link.h"

class QAction;
class QCloseEvent;
class QComboBox;
class QDockWidget;
class QLabel;
class QListView;
class QStackedWidget;
class QTabWidget;

namespace railyard::ui {

class ActionController;
class AlertNotifier;
class AlertsView;
class IncidentView;
class BloomView;
class CompactionView;
class FindDocumentDialog;
class RollingRestartDialog;
class LiveSource;
class OverviewFilterModel;
class OverviewView;
class Recorder;
class ReplaySource;
class ReplicationView;
class SlotMatrixView;
class StartPage;
class ThroughputView;
class TimelineWidget;
class TokenStore;

// The console's window: a node list, tabs for the cluster and per-node views, the actions on
// the selected node, recording, and a status bar saying where the data comes from (live or a
// recording), whether actions are enabled and where tokens are kept. Every menu action with a
// shortcut is listed by Help > Keyboard shortcuts; View switches tabs from the keyboard. The
// window's layout is remembered in QSettings from one run to the next. While it watches nothing it
// can show a start page instead of the tabs; File > Export view writes the current tab as PNG or
// CSV; a demo cluster's addresses and token are shown by File > Demo cluster.
//
// What it watches (the cluster state, the sources, the recorder, tokens and actions) belongs to
// its Session (ui/session/session.h); the window adds menus, docks, dialogs and views on top.
//
// Thread safety: GUI thread only.
class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // The session's options (read-only, poll rate, keyring, audit file, TLS), which the window
  // passes on, and the window's own.
  struct Options : Session::Options {
    // Restore the window's layout from the user's settings and save it on close. The console sets
    // it; off by default so that tests and embedded windows never read a user's saved layout.
    bool remember_layout = false;
    // Keep the clusters and recordings opened in QSettings ("Recent"). Off by default for the
    // same reason as remember_layout.
    bool remember_recent = false;
    // Show the start page (demo, add node, open, recent) while nothing is watched.
    bool show_start_page = false;
    // Starts a demo cluster and points the window at it (SetDemoInfo, AddNode); false with the
    // reason. Empty: the start page offers no demo.
    std::function<bool(QString* error)> start_demo;
    // Starts the demo node at `admin_address` again once its process has ended (killed,
    // crashed), where it was; false with the reason (still running, not a demo node, the start
    // failed). Empty: no Restart demo node.
    std::function<bool(const QString& admin_address, QString* error)> restart_demo_node;
    // A source main() opened that the window cannot name itself (a Prometheus range, fetched into
    // `source_recording`): while that recording is open, View > Copy command line gives these
    // arguments for it rather than the file's path.
    QStringList source_arguments;
    QString source_recording;
  };
  explicit MainWindow(const Options& options, QWidget* parent = nullptr);
  ~MainWindow() override;

  Session* session() const { return session_; }
  ClusterState* State() const;
  LiveSource* live_source() const;
  ReplaySource* replay_source() const;
  Recorder* recorder() const;
  TokenStore* token_store() const;
  ActionController* action_controller() const;
  QTabWidget* Tabs() const { return tabs_; }
  SlotMatrixView* slot_matrix_view() const { return slots_; }
  ReplicationView* replication_view() const { return replication_; }
  ThroughputView* throughput_view() const { return throughput_; }
  AlertsView* alerts_view() const { return alerts_; }
  IncidentView* incident_view() const { return incidents_; }
  AlertNotifier* alert_notifier() const { return notifier_; }
  QAction* NotifyAction() const { return notify_; }
  TimelineWidget* Timeline() const { return timeline_; }
  QComboBox* NodeSelector() const { return node_selector_; }
  QListView* NodeList() const { return node_list_; }
  OverviewView* overview_view() const { return overview_; }
  QAction* EditTokenAction() const { return edit_token_; }
  QAction* RemoveNodeAction() const { return remove_node_; }
  QAction* RestartDemoNodeAction() const { return restart_demo_node_; }
  QAction* ExportAction() const { return export_; }
  // Node > Find document: one dialog, opened (or raised) on the live nodes.
  QAction* FindDocumentAction() const { return find_document_; }
  // The dialog FindDocumentAction opened; null before.
  FindDocumentDialog* find_document_dialog() const { return find_document_dialog_; }
  // File > Back to live: watches again the live cluster a recording (or a failed open) replaced,
  // with the tokens it had; enabled while one is remembered and the window is not live.
  QAction* BackToLiveAction() const { return back_to_live_; }
  bool BackToLive(QString* error);
  // Node > Rolling restart: one dialog on the live nodes (replicas first, the updater last; the
  // nodes selected, if several are), its command the cluster file's restart_command.
  QAction* RollingRestartAction() const { return rolling_restart_; }
  RollingRestartDialog* rolling_restart_dialog() const { return rolling_restart_dialog_; }
  QAction* DemoInfoAction() const { return demo_info_; }
  StartPage* start_page() const { return start_page_; }
  // True while the start page stands in for the tabs.
  bool ShowsStartPage() const;

  // Live: polls `admin_address` (host:port) with `token` (may be empty: viewer access on nodes
  // without tokens), over TLS when Options::tls says so. Switches from a replay to live. False
  // with a message on a bad address, and on an address already watched with another token
  // (EditToken changes a token; adding never replaces one silently). An address already watched
  // with the same or no token is left as it is.
  bool AddNode(const QString& admin_address, const QString& token, QString* error,
               const QString& name = {});
  // Live: gives one node (ClusterState index) a new token, kept in the token store; a node
  // whose token was refused resumes polling with it. False outside live mode.
  bool SetNodeToken(int node_index, const QString& token);
  // Live: asks for a node's new token in a TokenDialog, without blocking (the Node menu's and
  // the node list's "Edit token"); the one that a refused token opens by itself.
  void EditToken(int node_index, const QString& reason = {});
  // Live: stops watching a node and forgets it (the Node menu's and the node list's "Remove
  // node"); its token stays in the token store for its address.
  void RemoveNode(int node_index);
  // Live: starts a demo node whose process has ended again (the Node menu's "Restart demo
  // node", offered on the demo's nodes when Options::restart_demo_node is set). False with the
  // reason.
  bool RestartDemoNode(int node_index, QString* error);
  // Live: every node of a cluster file (railyard.config.Cluster text format), over TLS when its
  // admin_tls block or Options::tls says so; tokens from the token store, else `token`.
  // Remembered among the recent clusters.
  bool OpenClusterFile(const QString& path, const QString& token, QString* error);
  // Replay: opens a recording; the timeline appears.
  bool OpenRecording(const QString& path, QString* error);
  // The command line that opens this view again (ui/shell/view_link.h): its source, tab, the
  // window and the range the charts are held on (the Replication plot's on that tab, else
  // Throughput's) and replay position. View > Copy command line puts it on the clipboard.
  ViewLink CurrentViewLink() const;
  QString ViewCommandLineText() const { return ViewCommandLine(CurrentViewLink()); }
  bool IsReplay() const;
  bool ReadOnly() const;

  bool StartRecording(const QString& path, QString* error);
  void StopRecording();

  int CurrentNode() const { return current_node_; }
  void SetCurrentNode(int node_index);
  // The tab showing `name` ("Overview", "Slots", ...); -1 if none.
  int TabIndex(const QString& name) const;

  // One line for logs: nodes by state, cluster req/s, errors/s (the headless demo prints it).
  QString SummaryLine() const;
  // Most recent first; empty unless Options::remember_recent.
  QStringList RecentClusters() const;
  QStringList RecentRecordings() const;

  // The demo cluster this window watches: File > Demo cluster shows it (enabled from now on).
  // Its nodes' tokens are kept for this session only. Call before adding its nodes.
  void SetDemoInfo(const DemoInfo& info);
  const DemoInfo& demo_info() const { return demo_info_data_; }
  // Opens (or raises) the Demo cluster dialog; null without demo info.
  DemoDialog* ShowDemoInfo();

  // Writes the current tab as a PNG (path ending in .png) or as CSV (any other path); false with
  // the reason in `error`. See ui/shell/view_export.h for what each view gives.
  bool ExportCurrentView(const QString& path, QString* error);

  // Reads a Prometheus range (ui/sources/prometheus_range.h) on a worker thread, then opens it
  // as a replay paused at its end, on the Throughput tab in the narrowest window that holds it,
  // and emits PrometheusRangeOpened. Meanwhile the status bar says so and File > Open
  // Prometheus range is off; a failure is told in the status bar and a (non-modal) box.
  void OpenPrometheusRange(const cluster::PrometheusSourceSpec& spec);
  // The Throughput tab, every chart in the narrowest window that shows `span_ms` whole.
  void ShowWholeRange(qint64 span_ms);
  // Every time axis' window (Throughput's charts, the Replication lag plot): one of
  // ThroughputModel::kWindowChoicesMinutes, else false and nothing changes. `--window`.
  bool SetWindowMinutes(int minutes);
  // Holds every time axis (Throughput's charts, the Replication lag plot) on [from_ms, to_ms]
  // (Unix ms) until the operator follows again: `--from`/`--to`.
  void ShowRange(qint64 from_ms, qint64 to_ms);
  // Watching live, the range the charts were held on when the console last closed (its saved
  // layout), if it ended within the day the nodes' recorders keep: held again and said in the
  // status bar; false if there is none. main() asks when it opened a live cluster without
  // `--from`; a replay or a new source follows its own.
  bool ShowSavedRange();

 Q_SIGNALS:
  void CurrentNodeChanged(int node_index);
  // `error` empty: opened.
  void PrometheusRangeOpened(const QString& error);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  // A node of the demo this window watches (by admin address, DemoInfo).
  bool IsDemoNode(int node_index) const;
  void BuildActions();
  void BuildViews();
  // Accessible names and descriptions of the custom-drawn widgets.
  void DescribeCustomWidgets();
  // The session is about to drop every node: close what names them, clear the selection.
  void OnSessionReset();
  // The session's mode or nodes changed: the replay dock, the recording span, the status.
  void OnSourceChanged();
  void UpdateStatus();
  void UpdateActionsEnabled();
  void OpenRollingRestart();
  // Window geometry, dock and toolbar state and the tabs' splitters, in QSettings under "window/";
  // saved on close, restored on start (a first start gets 1280x800).
  void SaveLayout() const;
  void RestoreLayout();
  // Start page or tabs, whichever fits the mode; refreshes the start page's recent list.
  void UpdateCentralPage();
  // In a replay, asks before Add node ends it (Cancel is the default); true to go on.
  bool ConfirmEndReplay();
  // Watching live: asks before a recording replaces the live view (C7); true to go on.
  bool ConfirmLeaveLive();
  void OnStartDemo();
  void OnExport();
  void OnConnectDialog();
  void OnOpenCluster();
  void OnOpenRecording();
  void OnOpenPrometheusRange();
  void OnRecordToggled(bool on);
  void OnTokenRefused(int node_index, const QString& reason);

  const Options options_;
  RecentFiles recent_;
  Session* session_;
  // The session's, kept at hand: they never change.
  ClusterState* state_;
  ActionController* actions_;
  int current_node_ = -1;

  QStackedWidget* central_ = nullptr;
  StartPage* start_page_ = nullptr;
  DemoInfo demo_info_data_;
  QTabWidget* tabs_ = nullptr;
  OverviewView* overview_ = nullptr;
  SlotMatrixView* slots_ = nullptr;
  TimelineWidget* timeline_ = nullptr;
  QDockWidget* timeline_dock_ = nullptr;
  QListView* node_list_ = nullptr;
  OverviewFilterModel* node_list_order_ = nullptr;  // Natural name order for node_list_.
  QComboBox* node_selector_ = nullptr;
  CompactionView* compaction_ = nullptr;
  BloomView* bloom_ = nullptr;
  ThroughputView* throughput_ = nullptr;
  ReplicationView* replication_ = nullptr;
  AlertsView* alerts_ = nullptr;
  IncidentView* incidents_ = nullptr;
  AlertNotifier* notifier_ = nullptr;
  QAction* notify_ = nullptr;
  std::optional<TimeWindow> saved_range_;  // From the saved layout; see ShowSavedRange.
  QString cluster_file_;  // The cluster file opened last (absolute), for CurrentViewLink.
  // The live cluster last left for another source: its cluster file (if it came from one) and
  // every node watched, with its token and name.
  struct LeftLive {
    QString cluster_file;
    std::vector<cluster::CopyTarget> nodes;
    QString description;
  };
  std::optional<LeftLive> left_live_;
  QString live_cluster_file_;  // The cluster file the live nodes came from; empty: by address.
  QAction* back_to_live_ = nullptr;
  // A source the window cannot name by its file (a Prometheus range): Options' at first.
  QStringList source_arguments_;
  QString source_recording_;
  QAction* open_prometheus_ = nullptr;

  QAction* drain_ = nullptr;
  QAction* undrain_ = nullptr;
  QAction* compact_ = nullptr;
  QAction* flush_ = nullptr;
  QAction* record_ = nullptr;
  QAction* edit_token_ = nullptr;
  QAction* remove_node_ = nullptr;
  QAction* restart_demo_node_ = nullptr;
  QAction* export_ = nullptr;
  QAction* demo_info_ = nullptr;
  QAction* find_document_ = nullptr;
  FindDocumentDialog* find_document_dialog_ = nullptr;
  QAction* rolling_restart_ = nullptr;
  RollingRestartDialog* rolling_restart_dialog_ = nullptr;
  QLabel* mode_label_ = nullptr;
  QLabel* read_only_label_ = nullptr;
  QLabel* keyring_label_ = nullptr;
  QLabel* record_label_ = nullptr;
};

}  // namespace railyard::ui
