#pragma once

#include <QVector>
#include <QWidget>

#include "ui/models/compaction_model.h"

namespace railyard::ui {

// The on-disk indexes of one node drawn as the docstore seed draws them: a stack of bars, newest
// on top, each as wide as its share of the largest index's entries, with the in-memory index
// above them filled to its level. Click selects an index; shift-click extends the selection to a
// run of adjacent indexes (the only sets a node compacts by hand).
//
// Thread safety: GUI thread only.
class IndexStackWidget : public QWidget {
  Q_OBJECT
 public:
  explicit IndexStackWidget(QWidget* parent = nullptr);

  void SetData(const QVector<IndexBar>& bars, quint64 memtable_entries, quint64 memtable_capacity);
  // Ids of the selected indexes, newest first; always a run of adjacent indexes.
  QVector<quint64> SelectedIds() const;
  // Selects the run of indexes spanning `ids` (newest to oldest); ids not shown are ignored.
  void SelectIds(const QVector<quint64>& ids);
  void ClearSelection();
  // The bar (row in the list of indexes, newest 0) under a point; -1 for none (or the memory row).
  int RowAt(const QPoint& pos) const;
  QRect BarRect(int row) const;
  // A bar's figures (id, entries, bytes, age, Bloom pages, P(no)); empty for no bar.
  QString DescribeRow(int row) const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 Q_SIGNALS:
  void SelectionChanged();

 protected:
  bool event(QEvent* event) override;  // Tooltips: one index's figures.
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  QRect RowRect(int row) const;  // row -1 is the in-memory index.
  void SetRange(int first, int last);

  QVector<IndexBar> bars_;
  quint64 memtable_entries_ = 0;
  quint64 memtable_capacity_ = 0;
  int first_ = -1;  // Selected rows [first_, last_]; -1: none.
  int last_ = -1;
  int anchor_ = -1;
};

}  // namespace railyard::ui
