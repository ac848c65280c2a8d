// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/column_fit.h"

#include <QEvent>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>
#include <QVector>
#include <algorithm>
#include <limits>

namespace railyard::ui {

namespace {

constexpr int kMinimumWidth = 36;
constexpr double kMostGrowth = 1.5;
constexpr char kFitterName[] = "railyardColumnFitter";
constexpr int kGrowthCheckMs = 250;

class ColumnFitter : public QObject {
 public:
  void DropWhenNarrow(const QVector<int>& columns) {
    drop_order_ = columns;
    refit_.start();
  }
  void Keep(int column, int width) {
    if (column < 0 || column >= preferred_.size()) return;
    kept_[column] = width;
    preferred_[column] = std::max(preferred_[column], width);
    refit_.start();
  }

  explicit ColumnFitter(QTableView* table) : QObject(table), table_(table) {
    setObjectName(QLatin1String(kFitterName));
    QHeaderView* header = table->horizontalHeader();
    for (int c = 0; c < header->count(); ++c) {
      measured_.append(header->sectionResizeMode(c) == QHeaderView::ResizeToContents);
      dragged_.append(false);
      preferred_.append(header->sectionSize(c));
      kept_.append(0);
    }
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setMinimumSectionSize(kMinimumWidth);
    table->setTextElideMode(Qt::ElideRight);
    // A header does not elide by default: a narrow heading showed its middle ("eplicatio").
    header->setTextElideMode(Qt::ElideRight);
    table->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    table->viewport()->installEventFilter(this);
    viewport_ = table->viewport();
    // A width the user drags a column to becomes its preferred width.
    connect(header, &QHeaderView::sectionResized, this, [this](int c, int, int size) {
      if (!fitting_ && c >= 0 && c < preferred_.size() && c + 1 < preferred_.size()) {
        preferred_[c] = size;
        measured_[c] = false;
        dragged_[c] = true;
      }
    });
    refit_.setSingleShot(true);
    refit_.setInterval(0);
    connect(&refit_, &QTimer::timeout, this, &ColumnFitter::Fit);
    growth_check_.setSingleShot(true);
    growth_check_.setInterval(kGrowthCheckMs);
    connect(&growth_check_, &QTimer::timeout, this, &ColumnFitter::CheckGrowth);
    if (QAbstractItemModel* model = table->model()) {
      // Rows arrive one insertion at a time (a replay seek re-adds every node): each only marks
      // the contents for measuring, which the next fit does once for all of them.
      for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved}) {
        connect(model, signal, this, [this] { RemeasureSoon(); });
      }
      connect(model, &QAbstractItemModel::modelReset, this, [this] { RemeasureSoon(); });
      // A figure that grows (a queue position gaining digits, a rate its thousands) must not be
      // cut to "1,312,6..." until rows next come or go: changed cells in view are measured
      // against their columns' contents, at most every kGrowthCheckMs.
      connect(model, &QAbstractItemModel::dataChanged, this,
              [this](const QModelIndex& top_left, const QModelIndex& bottom_right) {
                NoteChanged(top_left, bottom_right);
              });
      connect(model, &QAbstractItemModel::columnsInserted, this, [this] { Reset(); });
      connect(model, &QAbstractItemModel::columnsRemoved, this, [this] { Reset(); });
    }
    connect(table->verticalScrollBar(), &QScrollBar::valueChanged, this,
            [this] { CheckViewSoon(); });
    Remeasure();
  }

 protected:
  // Compares pointers only: while the table is being destroyed its viewport still sends events,
  // and the table's own methods must not be called then.
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (watched == viewport_ && event->type() == QEvent::Resize) refit_.start();
    // Rows that changed while the table was hidden, or that scroll into view, are measured too.
    if (watched == viewport_ && event->type() == QEvent::Show) CheckViewSoon();
    return false;
  }

 private:
  void Reset() {
    const int count = table_->horizontalHeader()->count();
    while (preferred_.size() < count) {
      preferred_.append(table_->horizontalHeader()->defaultSectionSize());
      measured_.append(false);
      dragged_.append(false);
      kept_.append(0);
    }
    preferred_.resize(count);
    measured_.resize(count);
    dragged_.resize(count);
    kept_.resize(count);
    Remeasure();
  }

  void NoteChanged(const QModelIndex& top_left, const QModelIndex& bottom_right) {
    if (!top_left.isValid() || !bottom_right.isValid()) return;
    changed_first_column_ = std::min(changed_first_column_, top_left.column());
    changed_last_column_ = std::max(changed_last_column_, bottom_right.column());
    changed_first_row_ = std::min(changed_first_row_, top_left.row());
    changed_last_row_ = std::max(changed_last_row_, bottom_right.row());
    // A hidden table keeps the range for when it is shown (eventFilter) and sleeps meanwhile.
    if (table_->isVisible() && !growth_check_.isActive()) growth_check_.start();
  }

  // Every cell in view is checked next: the rows shown are new (a scroll, the tab shown again).
  void CheckViewSoon() {
    changed_first_column_ = changed_first_row_ = 0;
    changed_last_column_ = changed_last_row_ = std::numeric_limits<int>::max();
    if (!growth_check_.isActive()) growth_check_.start();
  }

  // Measures the changed cells that are in view (so a frame of 300 rows costs what a screenful
  // does), and widens the preferred width of a column whose contents outgrew their measure.
  void CheckGrowth() {
    if (!table_->isVisible()) return;  // Kept for when it is shown.
    const int first_column = changed_first_column_;
    const int last_column = std::min(changed_last_column_, int(contents_.size()) - 1);
    int first_row = changed_first_row_, last_row = changed_last_row_;
    changed_first_column_ = changed_first_row_ = std::numeric_limits<int>::max();
    changed_last_column_ = changed_last_row_ = -1;
    if (remeasure_ || last_column < 0) return;  // A fit measures everything.
    const int top = table_->rowAt(0);
    if (top < 0 || table_->viewport()->height() <= 0) return;  // No row in view: none to measure.
    const int bottom = table_->rowAt(table_->viewport()->height() - 1);
    first_row = std::max(first_row, top);
    last_row = std::min(last_row, bottom < 0 ? table_->model()->rowCount() - 1 : bottom);
    const QAbstractItemView* view = table_;
    const int grid = table_->showGrid() ? 1 : 0;  // As QTableView::sizeHintForColumn counts it.
    bool grew = false;
    for (int c = std::max(first_column, 0); c <= last_column; ++c) {
      if (dragged_[c] || table_->isColumnHidden(c)) continue;
      for (int r = first_row; r <= last_row; ++r) {
        if (table_->isRowHidden(r)) continue;
        const int wanted = view->sizeHintForIndex(table_->model()->index(r, c)).width() + grid;
        if (wanted <= contents_[c]) continue;
        contents_[c] = wanted;
        preferred_[c] = std::max(preferred_[c], wanted);
        grew = true;
      }
    }
    if (grew) refit_.start();
  }

  void RemeasureSoon() {
    remeasure_ = true;
    refit_.start();
  }

  void Remeasure() {
    Measure();
    refit_.start();
  }

  void Measure() {
    remeasure_ = false;
    const QHeaderView* header = table_->horizontalHeader();
    // QTableView hides sizeHintForColumn; QAbstractItemView offers it.
    const QAbstractItemView* view = table_;
    contents_.resize(preferred_.size());
    for (int c = 0; c < preferred_.size(); ++c) {
      contents_[c] = view->sizeHintForColumn(c);
      // A column the user has not sized wants at least its contents and its heading, so a
      // narrow starting width never elides names ("demo-...") while other columns have room.
      if (measured_[c] || !dragged_[c]) {
        preferred_[c] = std::max({preferred_[c], header->sectionSizeHint(c), contents_[c]});
      }
      if (measured_[c]) preferred_[c] = std::max(header->sectionSizeHint(c), contents_[c]);
      preferred_[c] = std::max(preferred_[c], kept_[c]);
    }
  }

  // The width a column keeps before the widest give way: its heading and its contents (as
  // measured when rows last came or went), at most its preferred width; never below its kept one.
  int Floor(int c, const QFontMetrics& metrics) const {
    const QString heading =
        table_->model()->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
    // size(), not horizontalAdvance(): headings may have two lines.
    return std::max(kept_[c],
                    std::clamp(std::max(metrics.size(0, heading).width() + 14, contents_.value(c)),
                               kMinimumWidth, std::max(preferred_[c], kMinimumWidth)));
  }

  void Fit() {
    if (remeasure_) Measure();
    QHeaderView* header = table_->horizontalHeader();
    const QFontMetrics metrics(header->font());
    const int available = table_->viewport()->width();
    QVector<int> visible;
    QVector<int> floor(preferred_.size());
    long floors = 0;
    for (int c = 0; c < preferred_.size(); ++c) {
      if (header->isSectionHidden(c) && !drop_order_.contains(c)) continue;
      visible.append(c);
      floor[c] = Floor(c, metrics);
      floors += floor[c];
    }
    // Optional columns leave, in order, while the others' floors do not fit: a figure cut to
    // "117..." reads as a different number, and a heading cut to "eplicatio" as none.
    fitting_ = true;
    for (int c : drop_order_) {
      const bool drop = floors > available && visible.contains(c);
      if (drop) {
        floors -= floor[c];
        visible.removeOne(c);
      }
      header->setSectionHidden(c, drop);
    }
    fitting_ = false;
    if (visible.isEmpty()) return;
    long total = 0;
    for (int c : visible) total += std::max(preferred_[c], kMinimumWidth);
    QVector<int> widths(preferred_.size());
    if (total > available) {
      // First every column gives up its width beyond its floor, in proportion to how much it
      // has; only if that is not enough do the widest give way below that.
      long slack = 0;
      for (int c : visible) slack += std::max(preferred_[c], kMinimumWidth) - floor[c];
      const long excess = total - available;
      if (slack >= excess) {
        for (int c : visible) {
          const int own = std::max(preferred_[c], kMinimumWidth) - floor[c];
          widths[c] = floor[c] + own - int((own * excess + slack - 1) / slack);
        }
      } else {
        int cap = 0;
        for (int c : visible) cap = std::max(cap, floor[c]);
        auto sum_at = [&](int limit) {
          long sum = 0;
          for (int c : visible) sum += std::max(std::min(floor[c], limit), kept_[c]);
          return sum;
        };
        int low = kMinimumWidth, high = cap;
        while (low < high) {
          const int mid = (low + high + 1) / 2;
          if (sum_at(mid) <= available) {
            low = mid;
          } else {
            high = mid - 1;
          }
        }
        for (int c : visible) widths[c] = std::max(std::min(floor[c], low), kept_[c]);
      }
    } else {
      const double grow = std::min(kMostGrowth, double(available) / double(total));
      for (int c : visible) widths[c] = int(std::max(preferred_[c], kMinimumWidth) * grow);
    }
    fitting_ = true;
    for (int c : visible) header->resizeSection(c, widths[c]);
    fitting_ = false;
  }

  QTableView* table_;
  const QObject* viewport_ = nullptr;
  QVector<int> preferred_;
  QVector<int> contents_;    // Each column's contents' width when rows last changed.
  QVector<bool> measured_;   // Sized to contents by the view: measured again when rows change.
  QVector<bool> dragged_;    // Sized by the user: that width stands.
  QVector<int> kept_;        // KeepColumnWidth's floors (0: none).
  QVector<int> drop_order_;  // DropColumnsWhenNarrow's columns, the first to go first.
  QTimer refit_;
  QTimer growth_check_;
  // The cells signalled changed since the last growth check (empty: first > last).
  int changed_first_column_ = std::numeric_limits<int>::max();
  int changed_last_column_ = -1;
  int changed_first_row_ = std::numeric_limits<int>::max();
  int changed_last_row_ = -1;
  bool remeasure_ = false;  // Rows came or went since the contents were last measured.
  bool fitting_ = false;
};

}  // namespace

void FitColumnsToWidth(QTableView* table) { new ColumnFitter(table); }

namespace {

ColumnFitter* FitterOf(QTableView* table) {
  // By name: the fitter has no meta-object of its own for findChild to tell it apart by.
  return static_cast<ColumnFitter*>(
      table->findChild<QObject*>(QLatin1String(kFitterName), Qt::FindDirectChildrenOnly));
}

}  // namespace

void DropColumnsWhenNarrow(QTableView* table, const QVector<int>& columns) {
  if (ColumnFitter* fitter = FitterOf(table)) fitter->DropWhenNarrow(columns);
}

void KeepColumnWidth(QTableView* table, int column, int width) {
  // By name: the fitter has no meta-object of its own for findChild to tell it apart by.
  if (auto* fitter =
          table->findChild<QObject*>(QLatin1String(kFitterName), Qt::FindDirectChildrenOnly)) {
    static_cast<ColumnFitter*>(fitter)->Keep(column, width);
  }
}

}  // namespace railyard::ui
