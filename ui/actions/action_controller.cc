// SPDX-License-Identifier: Apache-2.0
#include "ui/actions/action_controller.h"

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QKeySequence>
#include <QLocale>
#include <QMessageBox>
#include <QProgressDialog>
#include <QStandardPaths>
#include <QStringList>
#include <algorithm>
#include <chrono>
#include <vector>

#include "core/cluster/admin_client.h"
#include "core/rpc/endpoint.h"
#include "ui/actions/audit_log_view.h"
#include "ui/models/compaction_model.h"
#include "ui/support/gui_thread.h"

namespace railyard::ui {

namespace {

cluster::AdminCommand CommandOf(ActionController::Action action) {
  switch (action) {
    case ActionController::Action::kDrain:
      return cluster::AdminCommand::kDrain;
    case ActionController::Action::kUndrain:
      return cluster::AdminCommand::kUndrain;
    case ActionController::Action::kFlush:
      return cluster::AdminCommand::kFlush;
    case ActionController::Action::kCompact:
      return cluster::AdminCommand::kCompact;
  }
  return cluster::AdminCommand::kFlush;
}

QString IndexList(const QVector<quint64>& indexes) {
  QStringList ids;
  for (quint64 id : indexes) ids << QStringLiteral("#%1").arg(id);
  return ids.join(QStringLiteral(", "));
}

}  // namespace

ActionController::ActionController(ClusterState* state, QWidget* dialog_parent)
    : QObject(nullptr), state_(state), dialog_parent_(dialog_parent) {
  pool_.setMaxThreadCount(4);
  confirmer_ = [this](const QString& title, const QString& text) {
    return QMessageBox::question(dialog_parent_, title, text,
                                 QMessageBox::Yes | QMessageBox::Cancel,
                                 QMessageBox::Cancel) == QMessageBox::Yes;
  };
  presenter_ = [this](const QString& title, const QString& text, bool ok) {
    // A success needs no click: the window shows it in passing and the audit log keeps it.
    if (ok) {
      Q_EMIT Succeeded(text);
      return;
    }
    // Non-modal: the console keeps updating while the operator reads it.
    auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, dialog_parent_);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setModal(false);
    box->show();
  };
  drain_action_ = new QAction(tr("&Drain"), this);
  undrain_action_ = new QAction(tr("&Undrain"), this);
  flush_action_ = new QAction(tr("&Flush"), this);
  compact_all_action_ = new QAction(tr("&Compact all"), this);
  // Ctrl+Shift: none of Qt's standard keys (copy, find, ...) uses these, and each still asks first.
  drain_action_->setShortcut(QKeySequence(tr("Ctrl+Shift+D")));
  undrain_action_->setShortcut(QKeySequence(tr("Ctrl+Shift+U")));
  flush_action_->setShortcut(QKeySequence(tr("Ctrl+Shift+F")));
  compact_all_action_->setShortcut(QKeySequence(tr("Ctrl+Shift+C")));
  connect(drain_action_, &QAction::triggered, this, [this] { DrainNodes(DrainTargets()); });
  connect(undrain_action_, &QAction::triggered, this, [this] { UndrainNodes(DrainTargets()); });
  connect(flush_action_, &QAction::triggered, this, [this] { Flush(current_node_); });
  connect(compact_all_action_, &QAction::triggered, this, [this] { Compact(current_node_, {}); });
  connect(this, &ActionController::AvailabilityChanged, this, &ActionController::UpdateActions);
  connect(state_, &ClusterState::NodesReset, this, [this] {
    selected_.clear();
    SetCurrentNode(-1);
  });
  // A node's role and token state come with its telemetry: the actions follow them.
  connect(state_, &ClusterState::FrameApplied, this, [this](const QVector<int>& changed) {
    for (int node : DrainTargets()) {
      if (changed.contains(node)) {
        UpdateActions();
        return;
      }
    }
  });
  UpdateActions();
}

ActionController::~ActionController() {
  // Each job is bounded by the admin client's connect and call deadlines.
  pool_.waitForDone(60000);
}

void ActionController::SetTokenProvider(TokenProvider provider) {
  tokens_ = std::move(provider);
  Q_EMIT AvailabilityChanged();
}

void ActionController::TokensChanged() { Q_EMIT AvailabilityChanged(); }

void ActionController::SetAuditPath(const QString& path) {
  audit_path_ = path;
  audit_.reset();  // Reopened at the new place on next use.
  audit_error_.clear();
}

QString ActionController::AuditPath() const {
  if (!audit_path_.isEmpty()) return audit_path_;
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
      .filePath(QStringLiteral("audit.sqlite"));
}

void ActionController::SetReadOnly(bool read_only) {
  read_only_ = read_only;
  Q_EMIT AvailabilityChanged();
}

bool ActionController::ReadOnly() const { return read_only_ || !tokens_; }

void ActionController::SetConfirmer(Confirmer confirmer) { confirmer_ = std::move(confirmer); }

void ActionController::SetResultPresenter(ResultPresenter presenter) {
  presenter_ = std::move(presenter);
}

QString ActionController::DisabledReason(int node) const {
  if (ReadOnly()) return tr("The console is read-only.");
  if (node < 0 || node >= state_->NodeCount()) return tr("No node selected.");
  const NodeView& view = state_->Node(node);
  if (view.telemetry && !ServesRequests(*view.telemetry)) {
    return tr("%1 is a client: it serves nothing to drain, flush or compact.").arg(view.name);
  }
  if (view.health == NodeHealth::kTokenRefused) {
    return tr("%1 refused the token: Node > Edit token gives another.").arg(view.name);
  }
  if (tokens_(node).isEmpty()) {
    return tr("No operator token for %1: add one to act on this node.")
        .arg(state_->Node(node).name);
  }
  if (Busy(node)) return tr("An action on %1 is still running.").arg(state_->Node(node).name);
  return {};
}

bool ActionController::CanAct(int node) const { return DisabledReason(node).isEmpty(); }

QString ActionController::ActionName(Action action) {
  switch (action) {
    case Action::kDrain:
      return QStringLiteral("drain");
    case Action::kUndrain:
      return QStringLiteral("undrain");
    case Action::kFlush:
      return QStringLiteral("flush");
    case Action::kCompact:
      return QStringLiteral("compact");
  }
  return {};
}

QString ActionController::DrainWarning(int node) const {
  const NodeView& view = state_->Node(node);
  if (!view.telemetry || !view.telemetry->has_replication()) return {};
  if (view.telemetry->replication().role() == admin::DOCSTORE_UPDATER) {
    return tr(
        "\n\nIt is the updater: writes have no other node to go to and fail until it is "
        "undrained.");
  }
  for (int other = 0; other < state_->NodeCount(); ++other) {
    const NodeView& o = state_->Node(other);
    if (other == node || !IsLive(o.health) || !o.telemetry) continue;
    if (o.telemetry->has_replication() &&
        o.telemetry->replication().role() == admin::DOCSTORE_REPLICA &&
        o.telemetry->state() == admin::NODE_SERVING) {
      return {};
    }
  }
  return tr("\n\nIt is the last replica that serves: every read falls on the updater.");
}

QString ActionController::DrainWarning(const QVector<int>& nodes) const {
  if (nodes.size() == 1) return DrainWarning(nodes.front());
  QStringList updaters;
  int replicas_drained = 0, replicas_left = 0;
  for (int i = 0; i < state_->NodeCount(); ++i) {
    const NodeView& o = state_->Node(i);
    if (!o.telemetry || !o.telemetry->has_replication()) continue;
    const bool chosen = nodes.contains(i);
    if (o.telemetry->replication().role() == admin::DOCSTORE_UPDATER) {
      if (chosen) updaters << o.name;
      continue;
    }
    if (o.telemetry->replication().role() != admin::DOCSTORE_REPLICA || !IsLive(o.health) ||
        o.telemetry->state() != admin::NODE_SERVING) {
      continue;
    }
    ++(chosen ? replicas_drained : replicas_left);
  }
  QString warning;
  if (!updaters.isEmpty()) {
    warning += tr("\n\n%1 is the updater: writes have no other node to go to and fail until it is "
                  "undrained.")
                   .arg(updaters.join(QStringLiteral(", ")));
  }
  if (replicas_drained > 0 && replicas_left == 0) {
    warning += updaters.isEmpty()
                   ? tr("\n\nThey are the last replicas that serve: every read falls on the "
                        "updater.")
                   : tr("\n\nThey are the last replicas that serve: no node is left to read "
                        "from.");
  }
  return warning;
}

QString ActionController::Who(int node) const {
  const NodeView& view = state_->Node(node);
  return QStringLiteral("%1 (%2)").arg(view.name, view.admin_address);
}

QString ActionController::ConfirmationText(Action action, const QVector<int>& nodes) const {
  if (nodes.size() == 1) return ConfirmationText(action, nodes.front());
  QStringList who;
  for (int node : nodes) {
    if (node >= 0 && node < state_->NodeCount()) who << Who(node);
  }
  const QString list = who.join(QStringLiteral(", "));
  switch (action) {
    case Action::kDrain:
      return tr("Drain %1 nodes: %2? They stop taking new requests; clients move to other "
                "nodes.")
                 .arg(who.size())
                 .arg(list) +
             DrainWarning(nodes);
    case Action::kUndrain:
      return tr("Undrain %1 nodes: %2? They take new requests again; clients come back to them.")
          .arg(who.size())
          .arg(list);
    default:
      return {};
  }
}

QString ActionController::ConfirmationText(Action action, int node,
                                           const QVector<quint64>& indexes) const {
  if (node < 0 || node >= state_->NodeCount()) return {};
  const NodeView& view = state_->Node(node);
  const QString who = QStringLiteral("%1 (%2)").arg(view.name, view.admin_address);
  const QLocale locale;
  const admin::StorageStats* storage = view.telemetry ? &view.telemetry->storage() : nullptr;
  switch (action) {
    case Action::kDrain:
      return tr("Drain %1? It stops taking new requests; clients move to other nodes.").arg(who) +
             DrainWarning(node);
    case Action::kUndrain:
      return tr("Undrain %1? It takes new requests again; clients come back to it.").arg(who);
    case Action::kFlush: {
      const QString entries =
          storage ? tr(" (%1 entries)").arg(locale.toString(storage->memtable_entries()))
                  : QString();
      return tr("Flush %1? Its in-memory index%2 is written to disk as a new index, merged with "
                "older ones by the usual rule.")
          .arg(who, entries);
    }
    case Action::kCompact: {
      if (indexes.isEmpty()) {
        const QString count = storage ? tr("all %n on-disk index(es)", "", storage->indexes_size())
                                      : tr("all on-disk indexes");
        return tr("Compact %1? It merges %2 into one; reads go on meanwhile, the disk works hard.")
            .arg(who, count);
      }
      quint64 entries = 0;
      if (storage) {
        for (const admin::IndexInfo& info : storage->indexes()) {
          if (indexes.contains(info.id())) entries += info.entries();
        }
      }
      return tr("Compact %1? It merges indexes %2 (%3 entries) into one; reads go on meanwhile.")
          .arg(who, IndexList(indexes), locale.toString(entries));
    }
  }
  return {};
}

AuditLog* ActionController::audit_log() {
  if (!audit_) {
    auto log = std::make_unique<AuditLog>();
    if (!log->Open(AuditPath(), &audit_error_)) return nullptr;
    audit_ = std::move(log);
  }
  return audit_.get();
}

bool ActionController::Audit(AuditEntry entry, QString* problem) {
  AuditLog* log = audit_log();
  if (!log) {
    if (problem) *problem = audit_error_;
    return false;
  }
  if (!log->Append(&entry, problem)) return false;
  Q_EMIT AuditAppended();
  return true;
}

QWidget* ActionController::CreateAuditLogView(QWidget* parent) {
  AuditLog* log = audit_log();
  if (!log) {
    // Still a view (empty), saying why, so the console's layout does not depend on the disk.
    static AuditLog closed;
    auto* view = new AuditLogView(&closed, parent);
    view->setToolTip(audit_error_);
    return view;
  }
  auto* view = new AuditLogView(log, parent);
  connect(this, &ActionController::AuditAppended, view, &AuditLogView::Refresh);
  return view;
}

void ActionController::SetCurrentNode(int node) {
  current_node_ = node;
  UpdateActions();
}

void ActionController::SetSelectedNodes(QVector<int> nodes) {
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  selected_ = nodes;
  UpdateActions();
}

QVector<int> ActionController::DrainTargets() const {
  if (selected_.size() > 1) return selected_;
  return {current_node_};
}

void ActionController::UpdateActions() {
  const bool enabled = CanAct(current_node_);
  const QString why = DisabledReason(current_node_);
  for (QAction* a : {flush_action_, compact_all_action_}) {
    a->setEnabled(enabled);
    a->setToolTip(why);
  }
  const QVector<int> targets = DrainTargets();
  QString first_why;
  for (int node : targets) {
    first_why = DisabledReason(node);
    if (!first_why.isEmpty()) break;
  }
  const bool several = targets.size() > 1;
  drain_action_->setText(several ? tr("&Drain %1 nodes").arg(targets.size()) : tr("&Drain"));
  undrain_action_->setText(several ? tr("&Undrain %1 nodes").arg(targets.size()) : tr("&Undrain"));
  for (QAction* a : {drain_action_, undrain_action_}) {
    a->setEnabled(first_why.isEmpty());
    a->setToolTip(first_why);
  }
}

void ActionController::Drain(int node) { Run(Action::kDrain, node, {}); }
void ActionController::Undrain(int node) { Run(Action::kUndrain, node, {}); }
void ActionController::DrainNodes(QVector<int> nodes) { RunOnEach(Action::kDrain, nodes); }
void ActionController::UndrainNodes(QVector<int> nodes) { RunOnEach(Action::kUndrain, nodes); }

void ActionController::RunOnEach(Action action, const QVector<int>& nodes) {
  if (nodes.size() == 1) {
    Run(action, nodes.front(), {});
    return;
  }
  const QString name = ActionName(action);
  if (nodes.isEmpty()) {
    Present(tr("Cannot %1").arg(name), tr("No node selected."), false);
    return;
  }
  QStringList refusals;
  QStringList names;
  for (int node : nodes) {
    if (const QString why = DisabledReason(node); !why.isEmpty()) refusals << why;
    if (node >= 0 && node < state_->NodeCount()) names << state_->Node(node).name;
  }
  if (!refusals.isEmpty()) {
    Present(tr("Cannot %1").arg(name),
            tr("Nothing was done: %1").arg(refusals.join(QStringLiteral(" "))), false);
    return;
  }
  const QString title =
      tr("%1 %2 nodes?").arg(name.left(1).toUpper() + name.mid(1)).arg(nodes.size());
  if (!confirmer_(title, ConfirmationText(action, nodes))) return;
  // The question ran an event loop: run on the nodes still there, by name.
  for (int node : nodes) {
    if (node < state_->NodeCount() && names.contains(state_->Node(node).name)) {
      Run(action, node, {}, /*confirmed=*/true);
    }
  }
}
void ActionController::Flush(int node) { Run(Action::kFlush, node, {}); }
void ActionController::Compact(int node, QVector<quint64> indexes) {
  Run(Action::kCompact, node, indexes);
}

void ActionController::Run(Action action, int node, const QVector<quint64>& requested,
                           bool confirmed) {
  const QString name = ActionName(action);
  if (const QString why = DisabledReason(node); !why.isEmpty()) {
    Present(tr("Cannot %1").arg(name), why, false);
    return;
  }
  // Copies: the confirmation runs an event loop, during which nodes may be added or cleared.
  const NodeView& view = state_->Node(node);
  const QString node_name = view.name;
  const QString address = view.admin_address;
  // Compact all merges the indexes the confirmation counted, by id: a flush while it is open adds
  // one that the operator was not asked about (it said "all 3" and merged 4).
  QVector<quint64> indexes = requested;
  if (action == Action::kCompact && indexes.isEmpty() && view.telemetry) {
    for (const admin::IndexInfo& info : view.telemetry->storage().indexes()) indexes << info.id();
  }
  if (action == Action::kCompact && !indexes.isEmpty()) {
    QVector<quint64> order;
    if (view.telemetry) {
      for (const admin::IndexInfo& info : view.telemetry->storage().indexes()) order << info.id();
    }
    if (!IndexesAreAdjacent(order, indexes)) {
      Present(tr("Cannot compact"),
              tr("Indexes %1 are not a run of adjacent on-disk indexes of %2; select neighbours "
                 "in age, or compact all.")
                  .arg(IndexList(indexes), node_name),
              false);
      return;
    }
  }
  const std::optional<rpc::Endpoint> endpoint = rpc::ParseEndpoint(address.toStdString());
  if (!endpoint) {
    Present(tr("Cannot %1").arg(name),
            tr("%1 is not an address the console can reach (host:port).").arg(address), false);
    return;
  }
  const QString title = tr("%1 %2?").arg(name.left(1).toUpper() + name.mid(1), node_name);
  if (!confirmed && !confirmer_(title, ConfirmationText(action, node, requested))) return;
  if (!CanAct(node) || state_->Node(node).admin_address != address) {
    return;  // Something changed while the question was open.
  }

  const quint64 job = next_job_++;
  in_flight_.insert(node, job);
  auto* progress =
      new QProgressDialog(tr("Running %1 on %2 (%3)\u2026").arg(name, node_name, address),
                          QString(), 0, 0, dialog_parent_);
  progress->setWindowTitle(tr("Railyard: %1").arg(name));
  progress->setWindowModality(Qt::NonModal);
  progress->setMinimumDuration(0);
  progress->setAttribute(Qt::WA_DeleteOnClose);
  progress->show();
  progress_.insert(job, progress);
  Q_EMIT ActionStarted(node, name);
  Q_EMIT AvailabilityChanged();

  // The worker gets copies of everything it needs; it never touches the controller.
  const std::string token = tokens_(node).toStdString();
  const cluster::AdminCommand command = CommandOf(action);
  const std::optional<rpc::TlsClientOptions> tls = tls_ ? tls_(node) : std::nullopt;
  const std::string client_name =
      ("railyard console (" + AuditLog::CurrentUser() + ")").toStdString();
  std::vector<uint64_t> ids(indexes.begin(), indexes.end());
  const rpc::Endpoint where = *endpoint;
  // `this` outlives every job (the destructor waits for the pool); the worker only hands it on.
  pool_.start([this, job, action, node, indexes, where, token, command, tls, client_name, ids] {
    Outcome outcome;
    cluster::AdminClient client(where, token, client_name, tls);
    rpc::Status s = client.Connect(std::chrono::seconds(3));
    admin::AdminResponse response;
    if (s.ok()) s = client.Run(command, ids, &response);
    outcome.ok = s.ok();
    // The node logs every command that passed its token check (admin_service.cc: RecordCommand),
    // and answers it with OK or an application code (>= 100).
    outcome.node_recorded = s.ok() || static_cast<int>(s.code()) >= 100;
    outcome.refused =
        s.code() == rpc::Code::kUnauthenticated || s.code() == rpc::Code::kFailedPrecondition;
    outcome.status = s.ok() ? QStringLiteral("OK") : QString::fromStdString(s.ToString());
    outcome.message = QString::fromStdString(response.message());
    RunOnReceiverThread(this, [this, job, action, node, indexes, outcome] {
      Finish(job, action, node, indexes, outcome);
    });
  });
}

void ActionController::Finish(quint64 job, Action action, int node, QVector<quint64> indexes,
                              Outcome outcome) {
  if (in_flight_.value(node) == job) in_flight_.remove(node);
  if (QPointer<QProgressDialog> progress = progress_.take(job)) progress->close();

  const QString name = ActionName(action);
  const bool known = node >= 0 && node < state_->NodeCount();
  const QString node_name = known ? state_->Node(node).name : QString::number(node);
  const QString address = known ? state_->Node(node).admin_address : QString();
  QString detail;
  if (action == Action::kCompact) {
    detail = indexes.isEmpty() ? tr("all indexes") : tr("indexes %1").arg(IndexList(indexes));
  }
  if (!outcome.message.isEmpty()) {
    detail += (detail.isEmpty() ? QString() : QStringLiteral("; ")) + outcome.message;
  }
  const QString result = outcome.ok        ? QStringLiteral("OK")
                         : outcome.refused ? QStringLiteral("refused: ") + outcome.status
                                           : QStringLiteral("failed: ") + outcome.status;

  AuditEntry entry;
  entry.unix_ms = QDateTime::currentMSecsSinceEpoch();
  entry.user = AuditLog::CurrentUser();
  entry.node_name = node_name;
  entry.node_address = address;
  entry.action = name;
  entry.detail = detail;
  entry.result = result;
  entry.ok = outcome.ok;
  QString audit_problem;
  if (AuditLog* log = audit_log()) {
    if (log->Append(&entry, &audit_problem)) Q_EMIT AuditAppended();
  } else {
    audit_problem = audit_error_;
  }

  admin::CommandEvent event;
  event.set_unix_ms(entry.unix_ms);
  event.set_command(name.toStdString());
  event.set_detail(QStringLiteral("%1 (%2)%3")
                       .arg(node_name, address, detail.isEmpty() ? QString() : " " + detail)
                       .toStdString());
  event.set_by((entry.user + QStringLiteral(" via railyard console")).toStdString());
  event.set_result(result.toStdString());
  Q_EMIT ActionFinished(event, outcome.node_recorded);
  Q_EMIT AvailabilityChanged();

  QString text = outcome.ok ? tr("%1 on %2 (%3): done.").arg(name, node_name, address)
                            : tr("%1 on %2 (%3): %4").arg(name, node_name, address, result);
  if (!audit_problem.isEmpty())
    text += tr("\n\nNot written to the audit log: %1").arg(audit_problem);
  // An action that ran but is missing from the audit log is a problem worth a dialog.
  Present(tr("Railyard: %1").arg(name), text, outcome.ok && audit_problem.isEmpty());
}

void ActionController::Present(const QString& title, const QString& text, bool ok) {
  if (presenter_) presenter_(title, text, ok);
}

}  // namespace railyard::ui
