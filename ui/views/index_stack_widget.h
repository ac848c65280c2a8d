// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QVector>
#include <QWidget>

#include "ui/models/compaction_model.h"

namespace railyard::ui {

// The on-disk indexes of one node drawn as an LSM is drawn: the in-memory index at the top, then
// one bar per index, oldest at the bottom, each as wide as its share of the largest index's
// entries. Indexes are anchored at the bottom, so a flush adds a bar above the others without
// moving them. The last few compaction sets are drawn as bands in their output's bar with a
// bracket naming the inputs; the indexes the next flush will merge are outlined. Click selects an
// index; shift-click extends the selection to a run of adjacent indexes (the only sets a node
// compacts by hand). Selection and hover follow index ids, never row numbers.
//
// Thread safety: GUI thread only.
class IndexStackWidget : public QWidget {
  Q_OBJECT
 public:
  explicit IndexStackWidget(QWidget* parent = nullptr);

  void SetData(const QVector<IndexBar>& bars, quint64 memtable_entries, quint64 memtable_capacity);
  // The past sets to draw (newest first); marks whose output is not on the stack are not drawn.
  void SetMarks(const QVector<CompactionMark>& marks);
  // The indexes the next flush merges (newest first); empty: it writes a new index on its own.
  void SetNextFlush(const QVector<quint64>& ids);
  // Non-empty: nothing to draw but this sentence (no node, no telemetry yet).
  void SetEmptyText(const QString& text);
  QString EmptyText() const { return empty_text_; }

  // Ids of the selected indexes, newest first; always a run of adjacent indexes.
  QVector<quint64> SelectedIds() const;
  // Selects the run of indexes spanning `ids` (newest to oldest); ids not shown are ignored.
  void SelectIds(const QVector<quint64>& ids);
  void ClearSelection();
  // The bar (row in the list of indexes, newest 0) under a point; -1 for none (or the memory row).
  int RowAt(const QPoint& pos) const;
  int RowOf(quint64 id) const;  // -1 if not shown.
  QRect BarRect(int row) const;
  // A bar's figures (id, entries, bytes, age, Bloom pages, P(no)); empty for no bar.
  QString DescribeRow(int row) const;
  // The in-memory index's row label: "memory  300 / 1,000" (entries / capacity). The stack is
  // the one place the in-memory index is shown.
  QString MemoryText() const;
  // The marks drawn now (their output on the stack).
  QVector<CompactionMark> DrawnMarks() const;
  quint64 HoveredId() const { return hovered_id_; }  // 0: none.

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 Q_SIGNALS:
  void SelectionChanged();

 protected:
  bool event(QEvent* event) override;  // Tooltips: one index's figures.
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  QRect RowRect(int row) const;  // row -1 is the in-memory index.
  void SetSelection(const QVector<quint64>& ids);
  void PaintMemory(QPainter& p);
  void PaintMark(QPainter& p, const CompactionMark& mark, int slot);

  QVector<IndexBar> bars_;
  quint64 memtable_entries_ = 0;
  quint64 memtable_capacity_ = 0;
  QVector<CompactionMark> marks_;
  QVector<quint64> next_flush_;
  QString empty_text_;
  QVector<quint64> selected_;  // Newest first.
  quint64 anchor_ = 0;         // The index a shift-click extends from; 0: none.
  quint64 hovered_id_ = 0;
  quint64 tooltip_id_ = 0;  // The index the visible tooltip describes.
};

}  // namespace railyard::ui
