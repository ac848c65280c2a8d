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
constexpr int kMargin = 6;

QString Age(qint64 ms) {
  if (ms < 60000) return QStringLiteral("%1 s").arg(ms / 1000);
  if (ms < 3600000) return QStringLiteral("%1 min").arg(ms / 60000);
  if (ms < 86400000) return QStringLiteral("%1 h").arg(ms / 3600000.0, 0, 'f', 1);
  return QStringLiteral("%1 d").arg(ms / 86400000.0, 0, 'f', 1);
}

}  // namespace

IndexStackWidget::IndexStackWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(false);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Minimum);
  setToolTip(tr("Click an index to select it; shift-click to select a run of adjacent indexes."));
}

void IndexStackWidget::SetData(const QVector<IndexBar>& bars, quint64 memtable_entries,
                               quint64 memtable_capacity) {
  const QVector<quint64> selected = SelectedIds();
  bars_ = bars;
  memtable_entries_ = memtable_entries;
  memtable_capacity_ = memtable_capacity;
  // Keep what survives of the selection (a compaction replaces the merged indexes).
  first_ = last_ = anchor_ = -1;
  SelectIds(selected);
  setMinimumHeight(sizeHint().height());  // Scrolls inside its scroll area rather than squeezing.
  updateGeometry();
  update();
}

QVector<quint64> IndexStackWidget::SelectedIds() const {
  QVector<quint64> ids;
  if (first_ < 0) return ids;
  for (int row = first_; row <= last_; ++row) ids.push_back(bars_[row].id);
  return ids;
}

void IndexStackWidget::SelectIds(const QVector<quint64>& ids) {
  int first = -1, last = -1;
  for (int row = 0; row < bars_.size(); ++row) {
    if (!ids.contains(bars_[row].id)) continue;
    if (first < 0) first = row;
    last = row;
  }
  SetRange(first, last);
  anchor_ = first;
}

void IndexStackWidget::ClearSelection() { SetRange(-1, -1); }

void IndexStackWidget::SetRange(int first, int last) {
  if (first > last) std::swap(first, last);
  if (first == first_ && last == last_) return;
  first_ = first;
  last_ = last;
  update();
  Q_EMIT SelectionChanged();
}

QRect IndexStackWidget::RowRect(int row) const {
  const int top = kMargin + (row + 1) * (kRowHeight + kGap);
  return QRect(kMargin, top, width() - 2 * kMargin, kRowHeight);
}

QRect IndexStackWidget::BarRect(int row) const {
  const QRect r = RowRect(row);
  const int full = std::max(10, r.width() - kLabelWidth);
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

QSize IndexStackWidget::sizeHint() const {
  return QSize(kLabelWidth + 400, 2 * kMargin + int(bars_.size() + 1) * (kRowHeight + kGap));
}

QSize IndexStackWidget::minimumSizeHint() const {
  return QSize(kLabelWidth + 100, 2 * kMargin + 2 * (kRowHeight + kGap));
}

void IndexStackWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QPalette pal = palette();
  p.fillRect(rect(), pal.color(QPalette::Base));
  const QLocale locale;
  const QColor bar_color(0x4c, 0x78, 0xa8);
  const QColor text = pal.color(QPalette::Text);

  // In-memory index: outline at capacity, filled to its level.
  {
    const QRect r = RowRect(-1);
    const QRect full = BarRect(-1);
    p.setPen(text);
    p.drawText(r.adjusted(0, 0, -(r.width() - kLabelWidth + 6), 0),
               Qt::AlignVCenter | Qt::AlignLeft,
               tr("memory  %1 / %2")
                   .arg(locale.toString(memtable_entries_), locale.toString(memtable_capacity_)));
    const double fill =
        memtable_capacity_ == 0 ? 0 : std::min(1.0, double(memtable_entries_) / memtable_capacity_);
    p.fillRect(QRect(full.left(), full.top(), int(full.width() * fill), full.height()),
               QColor(0xf2, 0x8e, 0x2b));
    p.setPen(QPen(QColor(0xf2, 0x8e, 0x2b), 1, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRect(full.adjusted(0, 0, -1, -1));
  }

  for (int row = 0; row < bars_.size(); ++row) {
    const IndexBar& bar = bars_[row];
    const QRect r = RowRect(row);
    const bool selected = row >= first_ && row <= last_ && first_ >= 0;
    if (selected) p.fillRect(r, pal.color(QPalette::Highlight).lighter(170));
    p.setPen(text);
    p.drawText(
        QRect(r.left() + 2, r.top(), kLabelWidth - 8, r.height()), Qt::AlignVCenter | Qt::AlignLeft,
        tr("#%1  %2  %3").arg(bar.id).arg(locale.toString(bar.entries)).arg(Age(bar.age_ms)));
    const QRect b = BarRect(row);
    p.fillRect(b, selected ? pal.color(QPalette::Highlight) : bar_color);
  }
  if (bars_.isEmpty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(RowRect(0), Qt::AlignVCenter | Qt::AlignLeft, tr("no on-disk indexes"));
  }
}

QString IndexStackWidget::DescribeRow(int row) const {
  if (row < 0 || row >= bars_.size()) return {};
  const IndexBar& bar = bars_[row];
  const QLocale locale;
  return tr("index #%1\n%2 entries, %3\ncreated %4 ago\n%5 Bloom pages, P(no) %6")
      .arg(bar.id)
      .arg(locale.toString(bar.entries), locale.formattedDataSize(qint64(bar.bytes)),
           Age(bar.age_ms))
      .arg(bar.bloom_pages)
      .arg(bar.p_no, 0, 'f', 3);
}

bool IndexStackWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = DescribeRow(RowAt(help->pos()));
    QToolTip::showText(help->globalPos(), text.isEmpty() ? toolTip() : text, this);
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
  if ((event->modifiers() & Qt::ShiftModifier) && anchor_ >= 0) {
    SetRange(anchor_, row);  // A run: adjacent by construction.
  } else {
    anchor_ = row;
    SetRange(row, row);
  }
}

}  // namespace railyard::ui
