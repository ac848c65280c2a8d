// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/cluster/alert_evaluator.h"
#include "railyard/alerts.pb.h"
#include "ui/models/cluster_state.h"

namespace railyard::ui {

// The alert rules evaluated over the cluster the console watches (cluster::AlertEvaluator, the
// definitions of docs/figures.md "Alerts"), once per frame, live and in replay alike, at the
// frame's cluster time: every node, answering or not (a node not polled yet, or whose token was
// refused, is not known). Two tables: what is pending or firing now (Active) and every change since
// the cluster was opened (History, newest first, the last kMaxHistory).
//
// A new cluster or a replay seek starts afresh; a removed node's alerts end without a
// "resolved". History frames (a backfill of the nodes' flight recorders, a seek's rebuild of the
// past before it) are evaluated as they come, at their own times, so the history holds what fired
// before the console looked (AlertsChanged says they are past: nothing to notify now). A node's
// own past that comes later (ClusterState::NodePastApplied: a node added, the day behind the
// backfill) is evaluated apart where it lies before the console first heard that node answer, by
// an evaluator of its own: its changes go into the history at their own times (past), and what
// fires now is not touched. An alert still firing where that stretch ends has no "resolved" from
// it; if it goes on, the console's own evaluation fires it again where its samples begin. A
// stretch the console missed later (a hole: a partition, a suspended console) keeps the console's
// own "not answering" and has the rules over telemetry (lag, p99, failed share, disk, writes
// refused...) evaluated apart the same way, so what fired where the console could not look is in
// the history too.
//
// Thread safety: GUI thread only.
class AlertModel : public QObject {
  Q_OBJECT
 public:
  static constexpr size_t kMaxHistory = 10000;
  // `rules_source` says where the rules came from ("built-in", a path), for the view.
  AlertModel(ClusterState* state, alerts::Rules rules, QString rules_source,
             QObject* parent = nullptr);
  ~AlertModel() override;

  const alerts::Rules& rules() const { return evaluator_->rules(); }
  const QString& RulesSource() const { return rules_source_; }
  const std::vector<cluster::ActiveAlert>& Active() const { return active_; }
  // Newest first.
  const std::deque<cluster::AlertTransition>& History() const { return history_; }
  int FiringCount() const;

  // Table models over Active() and History(), for the Alerts tab.
  QAbstractTableModel* ActiveTable() const { return active_table_; }
  QAbstractTableModel* HistoryTable() const { return history_table_; }

 Q_SIGNALS:
  // After a frame that changed anything; `changes` oldest first. `past`: from history frames.
  void AlertsChanged(const std::vector<cluster::AlertTransition>& changes, bool past);

 private:
  void Evaluate(bool past);
  using Past = std::vector<std::shared_ptr<const admin::Telemetry>>;
  void EvaluatePast(int node, const Past& past);
  // Observes [begin, end) of one node's past (oldest first) with `evaluator`, the node not
  // answering through each silence in it.
  void ObserveRun(cluster::AlertEvaluator* evaluator, const std::string& name,
                  Past::const_iterator begin, Past::const_iterator end,
                  std::vector<cluster::AlertTransition>* changes) const;
  // Puts `changes` (oldest first) into the history and tells of them.
  void Record(const std::vector<cluster::AlertTransition>& changes, bool past);
  void Reset();

  ClusterState* state_;
  alerts::Rules rules_;
  QString rules_source_;
  std::unique_ptr<cluster::AlertEvaluator> evaluator_;
  std::vector<cluster::ActiveAlert> active_;
  std::deque<cluster::AlertTransition> history_;
  std::set<std::string> evaluated_;  // The node names the evaluator has seen.
  // By node name: when the console first observed it answering (live or history frames).
  std::map<std::string, int64_t> answered_from_ms_;
  QAbstractTableModel* active_table_;
  QAbstractTableModel* history_table_;
};

}  // namespace railyard::ui
