// SPDX-License-Identifier: Apache-2.0
#include "ui/models/alert_model.h"

#include <QColor>
#include <algorithm>
#include <set>

#include "core/cluster/alert_rules.h"

namespace railyard::ui {

namespace {

QString Q(const std::string& s) { return QString::fromStdString(s); }

// A firing alert's row: red for critical, amber for a warning; nothing while pending or resolved.
QVariant SeverityShade(cluster::AlertPhase phase, alerts::Severity severity) {
  if (phase != cluster::AlertPhase::kFiring) return {};
  return QColor(severity == alerts::CRITICAL ? QColor(0xf6, 0xc6, 0xc6) : QColor(0xfb, 0xe6, 0xb8));
}

// What pending or firing alerts look like now: state, severity, alert, node, since, summary.
class ActiveAlertsTable final : public QAbstractTableModel {
 public:
  enum Column { kState, kSeverity, kAlert, kNode, kSince, kSummary, kColumns };
  ActiveAlertsTable(const AlertModel* model, QObject* parent)
      : QAbstractTableModel(parent), model_(model) {}
  void Reload() {
    beginResetModel();
    endResetModel();
  }
  int rowCount(const QModelIndex& parent) const override {
    return parent.isValid() ? 0 : static_cast<int>(model_->Active().size());
  }
  int columnCount(const QModelIndex& parent) const override {
    return parent.isValid() ? 0 : kColumns;
  }
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* const kNames[] = {"State", "Severity", "Alert", "Node", "Since", "Summary"};
    return QAbstractTableModel::tr(kNames[section]);
  }
  QVariant data(const QModelIndex& index, int role) const override {
    if (!index.isValid()) return {};
    const cluster::ActiveAlert& a = model_->Active()[static_cast<size_t>(index.row())];
    if (role == Qt::BackgroundRole) return SeverityShade(a.phase, a.severity);
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
      case kState:
        return QString(cluster::AlertPhaseName(a.phase));
      case kSeverity:
        return Q(cluster::SeverityName(a.severity));
      case kAlert:
        return Q(a.rule);
      case kNode:
        return Q(a.node);
      case kSince:
        return ClockText(a.phase == cluster::AlertPhase::kFiring ? a.firing_since_ms : a.since_ms);
      case kSummary:
        return Q(a.summary);
    }
    return {};
  }

 private:
  const AlertModel* model_;
};

// Every change, newest first: time, alert, node, change, severity, summary.
class AlertHistoryTable final : public QAbstractTableModel {
 public:
  enum Column { kTime, kAlert, kNode, kChange, kSeverity, kSummary, kColumns };
  AlertHistoryTable(const AlertModel* model, QObject* parent)
      : QAbstractTableModel(parent), model_(model) {}
  void Reload() {
    beginResetModel();
    endResetModel();
  }
  int rowCount(const QModelIndex& parent) const override {
    return parent.isValid() ? 0 : static_cast<int>(model_->History().size());
  }
  int columnCount(const QModelIndex& parent) const override {
    return parent.isValid() ? 0 : kColumns;
  }
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* const kNames[] = {"Time", "Alert", "Node", "Change", "Severity", "Summary"};
    return QAbstractTableModel::tr(kNames[section]);
  }
  QVariant data(const QModelIndex& index, int role) const override {
    if (!index.isValid()) return {};
    const cluster::AlertTransition& t = model_->History()[static_cast<size_t>(index.row())];
    if (role == Qt::BackgroundRole && index.column() == kChange) {
      return SeverityShade(t.phase, t.severity);
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
      case kTime:
        return ClockText(t.unix_ms);
      case kAlert:
        return Q(t.rule);
      case kNode:
        return Q(t.node);
      case kChange:
        return QString(cluster::AlertPhaseName(t.phase));
      case kSeverity:
        return Q(cluster::SeverityName(t.severity));
      case kSummary:
        return Q(t.summary);
    }
    return {};
  }

 private:
  const AlertModel* model_;
};

}  // namespace

AlertModel::AlertModel(ClusterState* state, alerts::Rules rules, QString rules_source,
                       QObject* parent)
    : QObject(parent),
      state_(state),
      rules_(std::move(rules)),
      rules_source_(std::move(rules_source)),
      evaluator_(std::make_unique<cluster::AlertEvaluator>(rules_)),
      active_table_(new ActiveAlertsTable(this, this)),
      history_table_(new AlertHistoryTable(this, this)) {
  connect(state_, &ClusterState::FrameApplied, this, [this] { Evaluate(false); });
  // A backfill's or a seek's history frames: the past's alerts, at their own times.
  connect(state_, &ClusterState::HistoryFrameApplied, this, [this] { Evaluate(true); });
  connect(state_, &ClusterState::NodePastApplied, this, &AlertModel::EvaluatePast);
  connect(state_, &ClusterState::NodesReset, this, [this] {
    if (state_->RemovedNode() < 0) {
      Reset();
      return;
    }
    // One node removed (the state no longer has it): forget whoever is gone.
    std::set<std::string> present;
    for (int i = 0; i < state_->NodeCount(); ++i)
      present.insert(state_->Node(i).name.toStdString());
    for (auto it = evaluated_.begin(); it != evaluated_.end();) {
      if (present.count(*it)) {
        ++it;
        continue;
      }
      evaluator_->Forget(*it);
      answered_from_ms_.erase(*it);  // Added again, its past comes again.
      it = evaluated_.erase(it);
    }
    active_ = evaluator_->Active();
    static_cast<ActiveAlertsTable*>(active_table_)->Reload();
  });
}

AlertModel::~AlertModel() = default;

int AlertModel::FiringCount() const {
  return static_cast<int>(std::count_if(active_.begin(), active_.end(), [](const auto& a) {
    return a.phase == cluster::AlertPhase::kFiring;
  }));
}

void AlertModel::Reset() {
  evaluator_ = std::make_unique<cluster::AlertEvaluator>(rules_);
  evaluated_.clear();
  answered_from_ms_.clear();
  active_.clear();
  history_.clear();
  static_cast<ActiveAlertsTable*>(active_table_)->Reload();
  static_cast<AlertHistoryTable*>(history_table_)->Reload();
}

void AlertModel::Evaluate(bool past) {
  std::vector<cluster::AlertTransition> changes;
  const qint64 now = state_->NowMs();
  for (int i = 0; i < state_->NodeCount(); ++i) {
    const NodeView& node = state_->Node(i);
    cluster::AlertObservation observation;
    observation.unix_ms = now;
    // Not known: not polled yet, or the token (not the node) was refused.
    if (node.health != NodeHealth::kTokenRefused && node.health != NodeHealth::kConnecting) {
      observation.answering = IsLive(node.health);
    }
    if (IsLive(node.health)) observation.telemetry = node.telemetry.get();
    const std::string name = node.name.toStdString();
    evaluated_.insert(name);
    if (observation.answering.value_or(false)) answered_from_ms_.try_emplace(name, now);
    evaluator_->Observe(name, observation, &changes);
  }
  std::vector<cluster::ActiveAlert> active = evaluator_->Active();
  const bool active_changed =
      active.size() != active_.size() ||
      !std::equal(active.begin(), active.end(), active_.begin(), [](const auto& a, const auto& b) {
        return a.rule == b.rule && a.node == b.node && a.phase == b.phase && a.summary == b.summary;
      });
  active_ = std::move(active);
  if (active_changed) static_cast<ActiveAlertsTable*>(active_table_)->Reload();
  Record(changes, past);
}

void AlertModel::EvaluatePast(int node,
                              const std::vector<std::shared_ptr<const admin::Telemetry>>& past) {
  if (node < 0 || node >= state_->NodeCount() || past.empty()) return;
  const std::string name = state_->Node(node).name.toStdString();
  const auto answered = answered_from_ms_.find(name);
  const int64_t until = answered == answered_from_ms_.end() ? INT64_MAX : answered->second;
  const auto first_heard = std::find_if(past.begin(), past.end(),
                                        [until](const auto& t) { return t->unix_ms() >= until; });
  std::vector<cluster::AlertTransition> changes;
  // Before the console first heard the node: every rule.
  cluster::AlertEvaluator before(rules_);
  ObserveRun(&before, name, past.begin(), first_heard, &changes);
  // After it (a stretch the console missed, filled from the recorder): what the console could not
  // see there, the rules over telemetry. Whether the node answered is the console's own word,
  // evaluated as it happened.
  alerts::Rules over_telemetry;
  for (const alerts::Rule& rule : rules_.rule()) {
    if (rule.figure() != alerts::NODE_NOT_ANSWERING) *over_telemetry.add_rule() = rule;
  }
  cluster::AlertEvaluator missed(std::move(over_telemetry));
  ObserveRun(&missed, name, first_heard, past.end(), &changes);
  std::stable_sort(changes.begin(), changes.end(),
                   [](const auto& a, const auto& b) { return a.unix_ms < b.unix_ms; });
  Record(changes, /*past=*/true);
}

void AlertModel::ObserveRun(cluster::AlertEvaluator* evaluator, const std::string& name,
                            Past::const_iterator begin, Past::const_iterator end,
                            std::vector<cluster::AlertTransition>* changes) const {
  const admin::Telemetry* previous = nullptr;
  for (auto it = begin; it != end; ++it) {
    const admin::Telemetry& t = **it;
    if (previous) {
      // The same allowance as the charts' gaps (ThroughputModel::PutPast).
      evaluator->ObserveSilence(
          name, previous->unix_ms() + state_->StaleAfterMs() + previous->downsampled().bucket_ms(),
          t.unix_ms(), changes);
    }
    cluster::AlertObservation observation;
    observation.unix_ms = t.unix_ms();
    observation.answering = true;
    observation.telemetry = &t;
    evaluator->Observe(name, observation, changes);
    previous = &t;
  }
}

void AlertModel::Record(const std::vector<cluster::AlertTransition>& changes, bool past) {
  if (changes.empty()) return;
  for (const cluster::AlertTransition& t : changes) {
    // Newest first; a later past's changes go in at their own times, after any newer one.
    const auto at = std::upper_bound(
        history_.begin(), history_.end(), t.unix_ms,
        [](int64_t ms, const cluster::AlertTransition& other) { return ms >= other.unix_ms; });
    history_.insert(at, t);
  }
  while (history_.size() > kMaxHistory) history_.pop_back();
  static_cast<AlertHistoryTable*>(history_table_)->Reload();
  Q_EMIT AlertsChanged(changes, past);
}

}  // namespace railyard::ui
