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
  double MaxUsefulness() const { return max_usefulness_; }

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
  void Recompute();

  ClusterState* state_;
  int node_ = -1;
  bool has_data_ = false;
  QVector<BloomRow> rows_;
  int columns_ = 0;
  double max_usefulness_ = 0;
  quint64 budget_bytes_ = 0;
  quint64 resident_bytes_ = 0;
  int resident_pages_ = 0;
  int total_pages_ = 0;
};

}  // namespace railyard::ui
