// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QThreadPool>
#include <QVector>
#include <functional>
#include <memory>
#include <optional>

#include "core/rpc/tls.h"
#include "railyard/admin.pb.h"
#include "ui/actions/audit_log.h"
#include "ui/models/cluster_state.h"

class QAction;
class QProgressDialog;
class QWidget;

namespace railyard::ui {

// The console's dangerous buttons: drain, undrain, flush and compact a node. Each action
//   1. needs an operator token for the node (from the token provider; no token, no action) and
//      the console not to be read-only;
//   2. asks for confirmation naming the node and the effect;
//   3. runs the admin command on a worker thread (never the GUI thread) and shows progress;
//   4. comes back to the GUI thread by RunOnReceiverThread (ui/support/gui_thread.h), shows the
//      result, writes an audit row and emits ActionFinished (which the recorder writes into a
//      recording as an event unless the node logged the command itself: `node_recorded`, true
//      once the node answered past its token check, so the command is in its telemetry's
//      recent_commands); a result still queued when the controller is destroyed is dropped.
//      By default a success is only announced (Succeeded, for a status bar), while a failure,
//      refusal or unaudited success opens a non-modal dialog with the reason.
// A viewer token is sent like any other: the node refuses it, and the refusal is shown and
// audited like a result.
//
// Thread safety: GUI thread only; workers touch nothing but their own copies of the inputs.
class ActionController : public QObject {
  Q_OBJECT
 public:
  enum class Action { kDrain, kUndrain, kFlush, kCompact };
  using TokenProvider = std::function<QString(int node)>;
  // Returns true to go ahead.
  using Confirmer = std::function<bool(const QString& title, const QString& text)>;
  // Shows an outcome to the user; ok is false for failures and for successes the audit log
  // missed. Default: Succeeded for ok, else a non-modal message box.
  using ResultPresenter = std::function<void(const QString& title, const QString& text, bool ok)>;

  // `state` must outlive the controller; `dialog_parent` parents its dialogs only (the controller
  // has no QObject parent: its owner deletes it). Null: dialogs are top-level windows.
  ActionController(ClusterState* state, QWidget* dialog_parent);
  // Waits (bounded by the admin client's own deadlines) for commands still running.
  ~ActionController() override;

  // The window its confirmations, progress and results open over (a session made before its
  // window gets it later).
  void SetDialogParent(QWidget* parent) { dialog_parent_ = parent; }
  void SetTokenProvider(TokenProvider provider);
  // The admin TLS settings of a node (nullopt: plain TCP); none set: plain TCP everywhere.
  using TlsProvider = std::function<std::optional<rpc::TlsClientOptions>(int node)>;
  void SetTlsProvider(TlsProvider provider) { tls_ = std::move(provider); }
  // The provider's answers changed (a token added, loaded from the keyring or removed): the
  // actions' enabled state is worked out again.
  void TokensChanged();
  // Default: QStandardPaths::AppDataLocation/audit.sqlite, opened on first use.
  void SetAuditPath(const QString& path);
  QString AuditPath() const;
  // Read-only: no tokens, or --read-only. Nothing is hidden; every action is disabled.
  void SetReadOnly(bool read_only);
  bool ReadOnly() const;
  // Tests answer confirmations without a person; default: a QMessageBox question.
  void SetConfirmer(Confirmer confirmer);
  void SetResultPresenter(ResultPresenter presenter);

  // Whether an action on `node` may run now, and if not, why (for tooltips).
  bool CanAct(int node) const;
  QString DisabledReason(int node) const;
  bool Busy(int node) const { return in_flight_.contains(node); }
  int InFlight() const { return int(in_flight_.size()); }

  // "Drain node2 (127.0.0.1:4567)? It stops taking new requests; clients move to other nodes."
  QString ConfirmationText(Action action, int node, const QVector<quint64>& indexes = {}) const;
  // A drain's warning, empty when there is none: the node is the updater (writes fail), or the
  // last replica that serves (as the telemetry shown says; reads all fall on the updater).
  QString DrainWarning(int node) const;
  // The same for draining `nodes` at once: the updater among them, or every replica that serves.
  QString DrainWarning(const QVector<int>& nodes) const;
  // One question for draining or undraining `nodes` at once, naming each.
  QString ConfirmationText(Action action, const QVector<int>& nodes) const;
  static QString ActionName(Action action);

  // The audit log (opened on first use; null if it cannot be opened).
  AuditLog* audit_log();
  // Appends a row for work done outside this controller (a rolling restart); false with the
  // reason if it could not be written.
  bool Audit(AuditEntry entry, QString* problem);
  QWidget* CreateAuditLogView(QWidget* parent);

  // Menu and toolbar actions that act on the current node, enabled when CanAct(current node),
  // with Ctrl+Shift shortcuts (D, U, F, C) that clash with none of Qt's standard keys. With
  // several nodes selected (SetSelectedNodes), drain and undrain act on all of them ("Drain 3
  // nodes"), enabled when each can be acted on; flush and compact stay on the current node.
  void SetCurrentNode(int node);
  int CurrentNode() const { return current_node_; }
  void SetSelectedNodes(QVector<int> nodes);
  // What drain and undrain act on: the selection if it holds several nodes, else the current one.
  QVector<int> DrainTargets() const;
  QAction* DrainAction() const { return drain_action_; }
  QAction* UndrainAction() const { return undrain_action_; }
  QAction* FlushAction() const { return flush_action_; }
  QAction* CompactAllAction() const { return compact_all_action_; }

 public Q_SLOTS:
  void Drain(int node);
  void Undrain(int node);
  // After one confirmation for all of them; nothing runs if any of them cannot be acted on.
  void DrainNodes(QVector<int> nodes);
  void UndrainNodes(QVector<int> nodes);
  void Flush(int node);
  // indexes empty: all. Otherwise a run of on-disk indexes adjacent in age.
  void Compact(int node, QVector<quint64> indexes);

 Q_SIGNALS:
  void ActionStarted(int node, const QString& action);
  void ActionFinished(const railyard::admin::CommandEvent& event, bool node_recorded);
  // Read-only mode, tokens or commands in flight changed: re-ask CanAct().
  void AvailabilityChanged();
  void AuditAppended();
  // The default presenter's word on a success ("drain on node1 (host:port): done.").
  void Succeeded(const QString& text);

 private:
  struct Outcome {
    bool ok = false;
    bool refused = false;
    QString status;              // "OK" or the rpc status text.
    QString message;             // The node's answer on success.
    bool node_recorded = false;  // See ActionFinished.
  };
  // `requested`: the indexes to compact, or none for all of them.
  // `confirmed`: asked already (RunOnEach), so no question of its own.
  void Run(Action action, int node, const QVector<quint64>& requested, bool confirmed = false);
  void RunOnEach(Action action, const QVector<int>& nodes);
  QString Who(int node) const;
  void Finish(quint64 job, Action action, int node, QVector<quint64> indexes, Outcome outcome);
  void Present(const QString& title, const QString& text, bool ok);
  void UpdateActions();

  ClusterState* state_;
  QPointer<QWidget> dialog_parent_;
  TokenProvider tokens_;
  TlsProvider tls_;
  Confirmer confirmer_;
  ResultPresenter presenter_;
  bool read_only_ = false;
  QString audit_path_;
  std::unique_ptr<AuditLog> audit_;
  QString audit_error_;
  QHash<int, quint64> in_flight_;  // node -> job id
  QHash<quint64, QPointer<QProgressDialog>> progress_;
  quint64 next_job_ = 1;
  int current_node_ = -1;
  QVector<int> selected_;
  QAction* drain_action_;
  QAction* undrain_action_;
  QAction* flush_action_;
  QAction* compact_all_action_;
  QThreadPool pool_;  // Last: destroyed (and waited for) first.
};

}  // namespace railyard::ui
