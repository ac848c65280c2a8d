// SPDX-License-Identifier: Apache-2.0
#include "ui/views/index_stack_widget.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

namespace railyard::ui {

namespace {

constexpr int kRowHeight = 22;
constexpr int kGap = 4;
constexpr int kLabelWidth = 210;
constexpr int kGutterWidth = 220;  // Right of the bars: brackets naming past compaction sets.
constexpr int kMargin = 6;
const QColor kMemoryColor(0xf2, 0x8e, 0x2b);
const QColor kBarColor(0x4c, 0x78, 0xa8);

QString Age(qint64 ms) {
  if (ms < 60000) return QStringLiteral("%1 s").arg(ms / 1000);
  if (ms < 3600000) return QStringLiteral("%1 min").arg(ms / 60000);
  if (ms < 86400000) return QStringLiteral("%1 h").arg(ms / 3600000.0, 0, 'f', 1);
  return QStringLiteral("%1 d").arg(ms / 86400000.0, 0, 'f', 1);
}

}  // namespace

IndexStackWidget::IndexStackWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);  // Hover follows the index under the cursor.
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Minimum);
  setToolTip(tr("Click an index to select it; shift-click to select a run of adjacent indexes."));
}

void IndexStackWidget::SetData(const QVector<IndexBar>& bars, quint64 memtable_entries,
                               quint64 memtable_capacity) {
  const QVector<quint64> selected = selected_;
  bars_ = bars;
  memtable_entries_ = memtable_entries;
  memtable_capacity_ = memtable_capacity;
  // Keep what survives of the selection (a compaction replaces the merged indexes).
  selected_.clear();
  SelectIds(selected);
  if (hovered_id_ != 0 && RowOf(hovered_id_) < 0) hovered_id_ = 0;
  // A tooltip names one index: hide it once that index is no longer under the cursor.
  if (tooltip_id_ != 0 && QToolTip::isVisible()) {
    const int row = RowAt(mapFromGlobal(QCursor::pos()));
    if (row < 0 || bars_[row].id != tooltip_id_) {
      QToolTip::hideText();
      tooltip_id_ = 0;
    }
  }
  setMinimumHeight(sizeHint().height());  // Scrolls inside its scroll area rather than squeezing.
  updateGeometry();
  update();
}

void IndexStackWidget::SetMarks(const QVector<CompactionMark>& marks) {
  marks_ = marks;
  update();
}

void IndexStackWidget::SetNextFlush(const QVector<quint64>& ids) {
  next_flush_ = ids;
  update();
}

void IndexStackWidget::SetEmptyText(const QString& text) {
  empty_text_ = text;
  update();
}

QVector<quint64> IndexStackWidget::SelectedIds() const { return selected_; }

void IndexStackWidget::SelectIds(const QVector<quint64>& ids) {
  int first = -1, last = -1;
  for (int row = 0; row < bars_.size(); ++row) {
    if (!ids.contains(bars_[row].id)) continue;
    if (first < 0) first = row;
    last = row;
  }
  QVector<quint64> run;
  for (int row = first; first >= 0 && row <= last; ++row) run.push_back(bars_[row].id);
  SetSelection(run);
  anchor_ = run.isEmpty() ? 0 : run.front();
}

void IndexStackWidget::ClearSelection() {
  anchor_ = 0;
  SetSelection({});
}

void IndexStackWidget::SetSelection(const QVector<quint64>& ids) {
  // Not QList's ==: in Qt 6.4 it passes a null pointer to memcmp for two empty lists (UBSan).
  if (std::equal(ids.begin(), ids.end(), selected_.begin(), selected_.end())) return;
  selected_ = ids;
  update();
  Q_EMIT SelectionChanged();
}

int IndexStackWidget::RowOf(quint64 id) const {
  for (int row = 0; row < bars_.size(); ++row) {
    if (bars_[row].id == id) return row;
  }
  return -1;
}

QRect IndexStackWidget::RowRect(int row) const {
  if (row < 0) return QRect(kMargin, kMargin, width() - 2 * kMargin, kRowHeight);
  // Anchored at the bottom: the oldest index keeps its place, a new one appears above the rest.
  const int bottom = std::max(height(), sizeHint().height()) - kMargin;
  const int top = bottom - int(bars_.size() - row) * (kRowHeight + kGap) + kGap;
  return QRect(kMargin, top, width() - 2 * kMargin, kRowHeight);
}

QRect IndexStackWidget::BarRect(int row) const {
  const QRect r = RowRect(row);
  const int full = std::max(10, r.width() - kLabelWidth - kGutterWidth);
  quint64 largest = 1;
  for (const IndexBar& bar : bars_) largest = std::max(largest, bar.entries);
  if (row < 0) {
    // The in-memory index: as wide as its capacity on the same scale (at least a sliver).
    const double share = std::min(1.0, double(memtable_capacity_) / double(largest));
    return QRect(r.left() + kLabelWidth, r.top(), std::max(8, int(full * share)), r.height());
  }
  const double share = double(bars_[row].entries) / double(largest);
  return QRect(r.left() + kLabelWidth, r.top(), std::max(2, int(full * share)), r.height());
}

int IndexStackWidget::RowAt(const QPoint& pos) const {
  for (int row = 0; row < bars_.size(); ++row) {
    if (RowRect(row).contains(pos)) return row;
  }
  return -1;
}

QVector<CompactionMark> IndexStackWidget::DrawnMarks() const {
  QVector<CompactionMark> drawn;
  for (const CompactionMark& mark : marks_) {
    if (RowOf(mark.output) >= 0) drawn.push_back(mark);
  }
  return drawn;
}

QSize IndexStackWidget::sizeHint() const {
  // One empty row between the in-memory index and the newest index.
  return QSize(kLabelWidth + kGutterWidth + 300,
               2 * kMargin + int(bars_.size() + 2) * (kRowHeight + kGap));
}

QSize IndexStackWidget::minimumSizeHint() const {
  return QSize(kLabelWidth + kGutterWidth + 100, 2 * kMargin + 3 * (kRowHeight + kGap));
}

QString IndexStackWidget::MemoryText() const {
  const QLocale locale;
  return tr("memory  %1 / %2")
      .arg(locale.toString(memtable_entries_), locale.toString(memtable_capacity_));
}

void IndexStackWidget::PaintMemory(QPainter& p) {
  const QRect r = RowRect(-1);
  const QRect full = BarRect(-1);
  p.setPen(palette().color(QPalette::Text));
  p.drawText(QRect(r.left() + 2, r.top(), kLabelWidth - 8, r.height()),
             Qt::AlignVCenter | Qt::AlignLeft, MemoryText());
  const double fill =
      memtable_capacity_ == 0 ? 0 : std::min(1.0, double(memtable_entries_) / memtable_capacity_);
  p.fillRect(QRect(full.left(), full.top(), int(full.width() * fill), full.height()), kMemoryColor);
  p.setPen(QPen(kMemoryColor, 1, Qt::DashLine));
  p.setBrush(Qt::NoBrush);
  p.drawRect(full.adjusted(0, 0, -1, -1));
  // Where the next flush goes: the same dashed colour outlines the indexes it merges.
  QStringList next{tr("mem")};
  for (quint64 id : next_flush_) next << QStringLiteral("#%1").arg(id);
  p.setPen(palette().color(QPalette::Text));
  p.drawText(QRect(r.right() - kGutterWidth + 8, r.top(), kGutterWidth - 8, r.height()),
             Qt::AlignVCenter | Qt::AlignLeft,
             tr("next flush: %1").arg(next.join(QStringLiteral(" + "))));
}

void IndexStackWidget::PaintMark(QPainter& p, const CompactionMark& mark, int slot) {
  const int row = RowOf(mark.output);
  if (row < 0) return;
  const QRect bar = BarRect(row);
  // Bands: each input's share of the output's bar, separated by thin lines.
  double offset = 0;
  for (int i = 0; i < mark.shares.size(); ++i) {
    offset += mark.shares[i];
    if (i + 1 == mark.shares.size()) break;
    const int x = bar.left() + int(bar.width() * offset);
    p.setPen(QPen(palette().color(QPalette::Base), 2));
    p.drawLine(x, bar.top() + 2, x, bar.bottom() - 2);
  }
  // The bracket beside the bar, newest sets darkest.
  QColor ink = palette().color(QPalette::Text);
  ink.setAlphaF(1.0 - 0.18 * slot);
  const int x = RowRect(row).right() - kGutterWidth + 4;
  p.setPen(QPen(ink, 1.5));
  p.drawLine(x, bar.top() + 1, x + 4, bar.top() + 1);
  p.drawLine(x + 4, bar.top() + 1, x + 4, bar.bottom() - 1);
  p.drawLine(x, bar.bottom() - 1, x + 4, bar.bottom() - 1);
  p.drawText(QRect(x + 10, bar.top(), kGutterWidth - 14, bar.height()),
             Qt::AlignVCenter | Qt::AlignLeft, tr("\u2190 %1").arg(mark.label));
}

void IndexStackWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QPalette pal = palette();
  p.fillRect(rect(), pal.color(QPalette::Base));
  if (!empty_text_.isEmpty()) {
    // No figures to show: say so, rather than draw an empty in-memory index of 0 / 0.
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(rect().adjusted(kMargin, kMargin, -kMargin, -kMargin),
               Qt::AlignTop | Qt::AlignLeft | Qt::TextWordWrap, empty_text_);
    return;
  }
  const QLocale locale;
  const QColor text = pal.color(QPalette::Text);
  PaintMemory(p);

  for (int row = 0; row < bars_.size(); ++row) {
    const IndexBar& bar = bars_[row];
    const QRect r = RowRect(row);
    const bool selected = selected_.contains(bar.id);
    if (selected) {
      p.fillRect(r, pal.color(QPalette::Highlight).lighter(170));
    } else if (bar.id == hovered_id_) {
      p.fillRect(r, pal.color(QPalette::AlternateBase));
    }
    p.setPen(text);
    p.drawText(
        QRect(r.left() + 2, r.top(), kLabelWidth - 8, r.height()), Qt::AlignVCenter | Qt::AlignLeft,
        tr("#%1  %2  %3").arg(bar.id).arg(locale.toString(bar.entries)).arg(Age(bar.age_ms)));
    const QRect b = BarRect(row);
    p.fillRect(b, selected ? pal.color(QPalette::Highlight) : kBarColor);
    if (next_flush_.contains(bar.id)) {
      p.setPen(QPen(kMemoryColor, 2, Qt::DashLine));
      p.setBrush(Qt::NoBrush);
      p.drawRect(b.adjusted(-2, -2, 1, 1));
    }
  }
  int slot = 0;
  for (const CompactionMark& mark : DrawnMarks()) PaintMark(p, mark, slot++);
  if (bars_.isEmpty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(RowRect(-1).translated(0, kRowHeight + kGap), Qt::AlignVCenter | Qt::AlignLeft,
               tr("no on-disk indexes"));
  }
}

QString IndexStackWidget::DescribeRow(int row) const {
  if (row < 0 || row >= bars_.size()) return {};
  const IndexBar& bar = bars_[row];
  const QLocale locale;
  QString text = tr("index #%1\n%2 entries, %3\ncreated %4 ago\n%5 Bloom pages, P(no) %6")
                     .arg(bar.id)
                     .arg(locale.toString(bar.entries), locale.formattedDataSize(qint64(bar.bytes)),
                          Age(bar.age_ms))
                     .arg(bar.bloom_pages)
                     .arg(bar.p_no, 0, 'f', 3);
  for (const CompactionMark& mark : marks_) {
    if (mark.output == bar.id) text += tr("\nmerged from %1").arg(mark.label);
  }
  if (next_flush_.contains(bar.id)) text += tr("\nthe next flush merges it");
  return text;
}

bool IndexStackWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int row = RowAt(help->pos());
    const QString text = DescribeRow(row);
    tooltip_id_ = row < 0 ? 0 : bars_[row].id;
    // Shown only while the cursor stays on that index's row.
    QToolTip::showText(help->globalPos(), text.isEmpty() ? toolTip() : text, this,
                       row < 0 ? QRect() : RowRect(row));
    return true;
  }
  return QWidget::event(event);
}

void IndexStackWidget::mousePressEvent(QMouseEvent* event) {
  const int row = RowAt(event->position().toPoint());
  if (row < 0) {
    ClearSelection();
    return;
  }
  const quint64 id = bars_[row].id;
  const int anchor_row = RowOf(anchor_);
  if ((event->modifiers() & Qt::ShiftModifier) && anchor_row >= 0) {
    QVector<quint64> run;  // A run: adjacent by construction.
    for (int r = std::min(anchor_row, row); r <= std::max(anchor_row, row); ++r) {
      run.push_back(bars_[r].id);
    }
    SetSelection(run);
  } else {
    anchor_ = id;
    SetSelection({id});
  }
}

void IndexStackWidget::mouseMoveEvent(QMouseEvent* event) {
  const int row = RowAt(event->position().toPoint());
  const quint64 id = row < 0 ? 0 : bars_[row].id;
  if (id != hovered_id_) {
    hovered_id_ = id;
    update();
  }
  QWidget::mouseMoveEvent(event);
}

void IndexStackWidget::leaveEvent(QEvent* event) {
  hovered_id_ = 0;
  update();
  QWidget::leaveEvent(event);
}

}  // namespace railyard::ui
