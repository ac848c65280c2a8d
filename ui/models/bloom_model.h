// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QString>
#include <QVector>

#include "ui/models/cluster_state.h"

namespace railyard::ui {

// One Bloom filter page of one on-disk index.
struct BloomCell {
  bool valid = false;  // False where an index has fewer pages than the widest one.
  quint64 index = 0;
  quint32 page = 0;
  double recent_requests = 0;
  double p_no = 0;
  double usefulness = 0;  // recent_requests x p_no: what the pager ranks by.
  bool resident = false;
};

// One row of the heatmap: an on-disk index.
struct BloomRow {
  quint64 index = 0;
  quint64 entries = 0;
  double p_no = 0;  // The seed's size rule: 1 - this index's share of keys in it and all older.
  double measured_false_positive_rate = 0;
  QVector<BloomCell> pages;  // By page number.
  int ResidentPages() const;
};

// The Bloom pager of one node as an index x page grid: usefulness of each page, which pages are
// resident, the memory budget and its use, P(no) per index. Rows are on-disk indexes newest
// first (as lookups visit them); columns are page numbers. Recomputed once per frame in which the
// node changed.
//
// The colour scale's top (ScaleMax) is the largest usefulness of any page of any node seen this
// session (since the model was made or the nodes were reset): it only grows, so a colour means
// the same usefulness across frames and nodes. The eviction cut-off is the usefulness of the least
// useful resident page: the pager keeps the most useful pages within the budget, so pages below
// it are not resident.
//
// Thread safety: GUI thread only.
class BloomModel : public QObject {
  Q_OBJECT
 public:
  explicit BloomModel(ClusterState* state, QObject* parent = nullptr);

  void SetNode(int node_index);  // -1 shows nothing.
  int Node() const { return node_; }
  bool HasData() const { return has_data_; }

  int RowCount() const { return int(rows_.size()); }
  int ColumnCount() const { return columns_; }
  const BloomRow& Row(int r) const { return rows_[r]; }
  // Null outside the grid or where the index has no such page.
  const BloomCell* Cell(int r, int column) const;
  double MaxUsefulness() const { return max_usefulness_; }  // This node, this frame.
  double ScaleMax() const { return scale_max_; }            // 0 until a page had any usefulness.
  // The least useful resident page's usefulness; -1 with no resident page.
  double EvictionCutoff() const { return cutoff_; }
  // No page, or every page at usefulness 0: nothing for a colour scale to tell apart.
  bool AllZero() const { return max_usefulness_ <= 0; }
  // Why a page is not resident, in words; empty for a resident page or none.
  QString NotResidentReason(int r, int column) const;

  quint64 BudgetBytes() const { return budget_bytes_; }
  quint64 ResidentBytes() const { return resident_bytes_; }
  double BudgetUse() const;  // resident / budget, 0..1 (0 with no budget).
  int ResidentPages() const { return resident_pages_; }
  int TotalPages() const { return total_pages_; }

  // A page's figures for a tooltip; empty outside the grid.
  QString DescribeCell(int r, int column) const;

 Q_SIGNALS:
  void Changed();

 private:
  void OnFrame(const QVector<int>& changed);
  void GrowScale(int node);
  void Recompute();

  ClusterState* state_;
  int node_ = -1;
  bool has_data_ = false;
  QVector<BloomRow> rows_;
  int columns_ = 0;
  double max_usefulness_ = 0;
  double scale_max_ = 0;
  double cutoff_ = -1;
  quint64 budget_bytes_ = 0;
  quint64 resident_bytes_ = 0;
  int resident_pages_ = 0;
  int total_pages_ = 0;
};

}  // namespace railyard::ui
