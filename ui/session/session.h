// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QString>
#include <optional>

#include "core/cluster/access.h"
#include "core/cluster/doc_copies.h"
#include "core/rpc/tls.h"
#include "railyard/alerts.pb.h"
#include "ui/models/cluster_state.h"

namespace railyard::ui {

class ActionController;
class BloomModel;
class CompactionModel;
class FlowModel;
class LiveSource;
class OverviewModel;
class AlertModel;
class IncidentModel;
class Recorder;
class ReplaySource;
class ReplicationLagModel;
class ReplicationModel;
class SlotMatrixModel;
class ThroughputModel;
class TokenStore;

// What the console watches, apart from any window: the cluster state, the two sources that can
// feed it (live polling and a recording's replay; exactly one at a time), the recorder, the
// admin tokens and the action controller, and which mode it is in. Adding nodes, opening a
// cluster file (through core/cluster's loader, the one railyardctl uses), opening a recording and
// recording go through here, so a test can drive the console's whole data path against real
// nodes without building a window. It also owns the models of the figures, each computed once per
// frame on the state, which the window's views draw. MainWindow keeps menus, docks, dialogs and
// views.
//
// Ownership: the session owns everything it returns; the state is destroyed last.
// Thread safety: GUI thread only.
class Session : public QObject {
  Q_OBJECT
 public:
  enum class Mode { kNone, kLive, kReplay };
  struct Options {
    bool read_only = false;  // Disables actions whatever the tokens.
    double poll_hz = 10;
    bool use_keyring = true;  // False: tokens in memory only (tests, --token-file).
    QString audit_path;       // Empty: the default under the user's data folder.
    // TLS to the admin services (--tls flags): on for every node when given, over a cluster
    // file's admin_tls block.
    cluster::TlsFlags tls;
    // The alert rules (--alert-rules, or the user's alerts.textproto); unset: the built-in ones.
    std::optional<alerts::Rules> alert_rules;
    QString alert_rules_source;  // Where they came from, for the Alerts tab.
  };
  explicit Session(const Options& options, QObject* parent = nullptr);
  // Stops recording and polling.
  ~Session() override;

  ClusterState* State() const { return state_; }
  LiveSource* live_source() const { return live_; }
  ReplaySource* replay_source() const { return replay_; }
  Recorder* recorder() const { return recorder_; }
  TokenStore* token_store() const { return tokens_; }
  ActionController* action_controller() const { return actions_; }

  // The models on State() that the views draw; the per-node ones (compaction, Bloom) follow the
  // node their view is set to.
  struct Models {
    OverviewModel* overview = nullptr;
    SlotMatrixModel* slots = nullptr;
    FlowModel* flow = nullptr;
    ThroughputModel* throughput = nullptr;
    ReplicationModel* replication = nullptr;
    ReplicationLagModel* replication_lag = nullptr;
    CompactionModel* compaction = nullptr;
    BloomModel* bloom = nullptr;
    AlertModel* alerts = nullptr;
    IncidentModel* incidents = nullptr;
  };
  const Models& models() const { return models_; }

  Mode mode() const { return mode_; }
  bool IsReplay() const { return mode_ == Mode::kReplay; }
  // "Live", "Live: <cluster name>" or "Replay: <file>"; empty with nothing watched.
  QString SourceDescription() const { return source_description_; }
  // No action can run: --read-only, not live, or no token for any node (telemetry only).
  bool ReadOnly() const;
  // Why ReadOnly() is what it is, in a few words.
  QString ReadOnlyReason() const;
  double PollHz() const;

  // Live: polls `admin_address` (host:port) with `token` (may be empty: the token store's, else
  // viewer access on nodes without tokens), over TLS when Options::tls says so. Ends a replay.
  // False with a message on a bad address, and on an address already watched with another token
  // (SetNodeToken changes a token; adding never replaces one silently). An address already
  // watched with the same or no token is left as it is.
  bool AddNode(const QString& admin_address, const QString& token, QString* error,
               const QString& name = {});
  // Live: gives one node (ClusterState index) a new token, kept in the token store; a node whose
  // token was refused resumes polling with it. False outside live mode or for no such node.
  bool SetNodeToken(int node_index, const QString& token);
  // Live: stops watching a node and forgets it and its stored token; the other nodes keep their
  // history. Returns a line for the status bar ("Removed node2; its token was forgotten"), empty
  // if there was no such node.
  QString RemoveNode(int node_index);
  // Live: every node of a cluster file (railyard.config.Cluster text format), over TLS when its
  // admin_tls block or Options::tls says so; tokens from the token store, else `token`.
  bool OpenClusterFile(const QString& path, const QString& token, QString* error);
  // Replay: opens a recording; false (and nothing watched) with the reason.
  bool OpenRecording(const QString& path, QString* error);
  // Live only. Recording goes on until StopRecording, a switch of source or the session's end.
  bool StartRecording(const QString& path, QString* error);
  // Stops recording; returns what was written ("Recorded 120 snapshots into F (1.2 MB)") or the
  // error, empty if nothing was being recorded.
  QString StopRecording();
  // Stops polling and recording (the window's end, before its views go).
  void Stop();

  // Tokens for these addresses stay in memory only (a demo's nodes).
  void KeepTokensForSessionOnly(const QStringList& addresses);

  // Live: every watched node to ask for a document (cluster/doc_copies.h), with its token (the
  // token store's, else the one it was added with) and TLS; empty when not live.
  std::vector<cluster::CopyTarget> CopyTargets() const;
  // The cluster file's restart_command (config.Cluster) while its nodes are watched; else empty.
  QString RestartCommand() const { return restart_command_; }

  // One line for logs: nodes by state, cluster req/s, errors/s (the headless demo prints it).
  QString SummaryLine() const;

 Q_SIGNALS:
  // Every node is about to be dropped (a switch of source): questions naming nodes by index
  // must close, selections reset.
  void AboutToReset();
  // The mode, the source description or the node list changed.
  void SourceChanged();
  // A token was set, loaded or forgotten: ReadOnly() and the actions' availability may differ.
  void TokensChanged();
  // A node refused its token; it is not polled until SetNodeToken.
  void TokenRefused(int node_index, const QString& reason);

 private:
  void Reset(Mode mode);
  bool AddLiveNode(const QString& admin_address, const QString& token, QString* error,
                   const QString& name, std::optional<rpc::TlsClientOptions> tls);

  const Options options_;
  ClusterState* state_;
  LiveSource* live_;
  ReplaySource* replay_;
  Recorder* recorder_;
  TokenStore* tokens_;
  ActionController* actions_;
  Models models_;
  Mode mode_ = Mode::kNone;
  QString restart_command_;
  QString source_description_;
};

}  // namespace railyard::ui
