// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QVector>
#include <QWidget>

#include "ui/models/cluster_state.h"
#include "ui/models/compaction_model.h"
#include "ui/views/index_stack_widget.h"

class QLabel;
class QPushButton;
class QTableView;

namespace railyard::ui {

// Compaction sets of one node: its on-disk indexes as a stack of bars sized by entries (oldest at
// the bottom) with the last few compaction sets drawn on it, the in-memory index's fill (drawn
// there only, on the stack's top row) and the set the next flush will merge, write amplification,
// and a timeline of the compaction sets it ran. Without telemetry it says so and draws no figures.
// The user selects a run of adjacent indexes (or none) and asks to compact them or all; the view
// only emits CompactRequested: ActionController confirms, runs and audits.
//
// Thread safety: GUI thread only.
class CompactionView : public QWidget {
  Q_OBJECT
 public:
  // Draws `model`, which the console's session owns and which must outlive the view.
  explicit CompactionView(CompactionModel* model, QWidget* parent = nullptr);
  // With a model of its own on `state` (tests, a view outside the console).
  explicit CompactionView(ClusterState* state, QWidget* parent = nullptr);

  void SetNode(int node_index);
  int Node() const { return model_->Node(); }
  // Off in read-only mode, or without an operator token for the node: the view still shows
  // everything.
  void SetActionsEnabled(bool enabled);

  CompactionModel* Model() const { return model_; }
  IndexStackWidget* IndexStack() const { return stack_; }
  QTableView* Timeline() const { return timeline_; }  // Shows Model()->History().
  QPushButton* CompactSelectedButton() const { return compact_selected_; }
  QPushButton* CompactAllButton() const { return compact_all_; }
  QString Heading() const;  // "node1: 3 on-disk indexes, 33,283 entries"
  // "memtable at 83% -> next flush merges mem + #37 + #33"; empty without data.
  QString NextFlushText() const;
  QString WriteAmplificationText() const;
  // The document cache: hit rate over the last polling interval and since start, bytes / budget.
  QString CacheText() const;

 public Q_SLOTS:
  // Emit CompactRequested for the selected run (two or more adjacent indexes) or for all.
  void RequestCompactSelected();
  void RequestCompactAll();

 Q_SIGNALS:
  // indexes empty: all.
  void CompactRequested(int node, QVector<quint64> indexes);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void Refresh();
  void UpdateButtons();

  CompactionModel* model_;
  QLabel* title_;
  QLabel* next_flush_;
  IndexStackWidget* stack_;
  QLabel* amplification_;
  QLabel* cache_;
  QPushButton* compact_selected_;
  QPushButton* compact_all_;
  QTableView* timeline_;
  bool actions_enabled_ = true;
  bool dirty_ = false;
};

}  // namespace railyard::ui
