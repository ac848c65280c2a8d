// SPDX-License-Identifier: Apache-2.0
#include "ui/views/slot_matrix_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/models/slot_matrix_client_detail.h"
#include "ui/models/slot_matrix_model.h"
#include "ui/models/slot_matrix_sort.h"
#include "ui/models/slot_matrix_totals.h"
#include "ui/views/slot_matrix_parts.h"

namespace railyard::ui {

SlotMatrixView::SlotMatrixView(ClusterState* state, QWidget* parent)
    : SlotMatrixView(new SlotMatrixModel(state), parent) {
  model_->setParent(this);
}

SlotMatrixView::SlotMatrixView(SlotMatrixModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      sort_(new SlotMatrixSortModel(model_, this)),
      totals_(new SlotMatrixTotalsModel(model_, this)),
      detail_(new ClientDetailModel(model_, model->State(), this)),
      matrix_(new QTableView(this)),
      totals_view_(new QTableView(this)),
      detail_view_(new QTableView(this)),
      detail_title_(new QLabel(detail_->Summary(), this)),
      sort_choice_(new QComboBox(this)) {
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(BuildMatrixSide());
  splitter->addWidget(BuildDetailSide());
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  splitter->setCollapsible(1, false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(splitter);

  connect(matrix_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) SelectClient(sort_->mapToSource(current).row());
          });
  // The title says what the rows below show, recounted whenever they change (each frame).
  connect(detail_, &ClientDetailModel::Refreshed, this, [this] {
    detail_title_->setText(detail_->Summary());
    FitDetailColumns();
  });
  connect(model_, &QAbstractItemModel::columnsInserted, this, &SlotMatrixView::ResizeAllColumns);
  connect(model_, &QAbstractItemModel::columnsRemoved, this, &SlotMatrixView::ResizeAllColumns);
  connect(model_, &QAbstractItemModel::layoutChanged, this, &SlotMatrixView::ResizeAllColumns);
  connect(model_, &QAbstractItemModel::headerDataChanged, this,
          [this](Qt::Orientation orientation, int first, int last) {
            if (orientation == Qt::Horizontal) ResizeColumns(first, last);
          });
  connect(totals_, &QAbstractItemModel::modelReset, this, &SlotMatrixView::ResizeAllColumns);
  connect(model_, &QAbstractItemModel::rowsInserted, this,
          [this](const QModelIndex&, int first, int last) { FitRowHeaders(first, last); });
  connect(model_, &QAbstractItemModel::modelReset, this, [this] {
    row_header_width_ = 0;
    FitRowHeaders(0, model_->rowCount() - 1);
    ResizeAllColumns();
  });
  FitRowHeaders(0, model_->rowCount() - 1);
  ResizeAllColumns();
  FitDetailColumns();
}

void SlotMatrixView::setVisible(bool visible) {
  if (visible) model_->SetActive(true);
  QWidget::setVisible(visible);
  if (!visible) model_->SetActive(false);
}

QWidget* SlotMatrixView::BuildMatrixSide() {
  matrix_->setModel(sort_);
  matrix_->setItemDelegate(new KeepColoursDelegate(matrix_));
  matrix_->setSelectionBehavior(QAbstractItemView::SelectRows);
  matrix_->setSelectionMode(QAbstractItemView::SingleSelection);
  matrix_->setShowGrid(true);
  matrix_->setWordWrap(false);
  // 20000 cells: fixed sizes, so scrolling and updates never measure contents.
  const int row_height = fontMetrics().height() + 4;
  for (QTableView* view : {matrix_, totals_view_}) {
    view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view->verticalHeader()->setDefaultSectionSize(row_height);
    view->verticalHeader()->setTextElideMode(Qt::ElideMiddle);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view->horizontalHeader()->setTextElideMode(Qt::ElideMiddle);
  }
  // Two lines: the server's name, and its mark ("lame duck", "unreachable") when it has one.
  QHeaderView* header = matrix_->horizontalHeader();
  header->setFixedHeight(2 * header->fontMetrics().lineSpacing() + 8);

  // The totals sit under the matrix, column for column, and scroll with it.
  totals_view_->setModel(totals_);
  totals_view_->horizontalHeader()->hide();
  totals_view_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  totals_view_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  totals_view_->setSelectionMode(QAbstractItemView::NoSelection);
  totals_view_->setFocusPolicy(Qt::NoFocus);
  totals_view_->setFixedHeight(SlotMatrixTotalsModel::kRowCount * row_height +
                               2 * totals_view_->frameWidth());
  connect(matrix_->horizontalScrollBar(), &QScrollBar::valueChanged,
          totals_view_->horizontalScrollBar(), &QScrollBar::setValue);
  // Same viewport width as the matrix (an empty scroll bar where the matrix has a real one), so
  // the columns stay aligned when scrolled all the way right.
  connect(matrix_->verticalScrollBar(), &QScrollBar::rangeChanged, this, [this](int min, int max) {
    totals_view_->setVerticalScrollBarPolicy(max > min ? Qt::ScrollBarAlwaysOn
                                                       : Qt::ScrollBarAlwaysOff);
  });

  sort_choice_->addItem(tr("name"), int(SlotMatrixSortModel::Order::kName));
  sort_choice_->addItem(tr("slots held (most first)"), int(SlotMatrixSortModel::Order::kSlots));
  sort_choice_->addItem(tr("busy share (busiest first)"),
                        int(SlotMatrixSortModel::Order::kBusyShare));
  connect(sort_choice_, &QComboBox::currentIndexChanged, this, [this](int index) {
    sort_->SetOrder(SlotMatrixSortModel::Order(sort_choice_->itemData(index).toInt()));
  });
  auto* sort_row = new QHBoxLayout;
  sort_row->addWidget(new QLabel(tr("Sort clients by"), this));
  sort_row->addWidget(sort_choice_);
  sort_row->addStretch(1);

  auto* side = new QWidget(this);
  auto* layout = new QVBoxLayout(side);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(sort_row);
  layout->addWidget(matrix_, 1);
  layout->addWidget(totals_view_);
  layout->addWidget(MakeSlotMatrixLegend(side));
  return side;
}

QWidget* SlotMatrixView::BuildDetailSide() {
  detail_view_->setModel(detail_);
  detail_view_->verticalHeader()->hide();
  detail_view_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
  detail_view_->setSelectionMode(QAbstractItemView::NoSelection);
  detail_view_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  detail_title_->setWordWrap(true);
  detail_side_ = new QWidget(this);
  auto* layout = new QVBoxLayout(detail_side_);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(detail_title_);
  layout->addWidget(detail_view_, 1);
  return detail_side_;
}

void SlotMatrixView::ResizeAllColumns() { ResizeColumns(0, model_->columnCount() - 1); }

void SlotMatrixView::ResizeColumns(int first, int last) {
  QHeaderView* header = matrix_->horizontalHeader();
  const QFontMetrics header_metrics = header->fontMetrics();
  const QFontMetrics cell_metrics = matrix_->fontMetrics();
  const int pad = 2 * style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header) + 8;
  const int cell = cell_metrics.horizontalAdvance(SlotMatrixModel::kCellChars) + 8;
  const int widest = header_metrics.averageCharWidth() * kMaxHeaderChars;
  for (int c = std::max(0, first); c <= last && c < model_->columnCount(); ++c) {
    int text = 0;
    const QStringList lines = model_->headerData(c, Qt::Horizontal).toString().split('\n');
    for (const QString& line : lines) text = std::max(text, header_metrics.horizontalAdvance(line));
    const bool server = model_->ServerOfColumn(c) >= 0;
    const int width =
        server ? std::max(cell, std::min(text + pad, widest))
               : std::max(cell_metrics.horizontalAdvance(QStringLiteral("0000")) + 8, text + pad);
    matrix_->setColumnWidth(c, width);
    if (c < totals_->columnCount()) totals_view_->setColumnWidth(c, width);
  }
}

void SlotMatrixView::FitRowHeaders(int first, int last) {
  const QFontMetrics metrics = matrix_->verticalHeader()->fontMetrics();
  const int pad = 2 * style()->pixelMetric(QStyle::PM_HeaderMargin) + 8;
  int width = row_header_width_;
  for (int r = 0; r < totals_->rowCount(); ++r) {
    width = std::max(
        width, metrics.horizontalAdvance(totals_->headerData(r, Qt::Vertical).toString()) + pad);
  }
  for (int r = std::max(0, first); r <= last && r < model_->rowCount(); ++r) {
    width = std::max(width, metrics.horizontalAdvance(model_->client(r).name) + pad);
  }
  SetRowHeaderWidth(std::min(width, metrics.averageCharWidth() * 32));
}

void SlotMatrixView::SetRowHeaderWidth(int width) {
  if (width == row_header_width_ && matrix_->verticalHeader()->width() == width) return;
  row_header_width_ = width;
  matrix_->verticalHeader()->setFixedWidth(width);
  totals_view_->verticalHeader()->setFixedWidth(width);
}

void SlotMatrixView::FitDetailColumns() {
  // Every column whole: as wide as its contents, and the panel at least as wide as them all.
  detail_view_->resizeColumnsToContents();
  QHeaderView* header = detail_view_->horizontalHeader();
  const int needed = header->length() + 2 * detail_view_->frameWidth() +
                     detail_view_->verticalScrollBar()->sizeHint().width();
  detail_side_->setMinimumWidth(std::max(needed, detail_side_->minimumWidth()));
}

void SlotMatrixView::SelectClient(int row) {
  if (row < 0 || row >= model_->ClientCount()) return;
  detail_->SetClientId(model_->client(row).id);
}

QString SlotMatrixView::DetailTitle() const { return detail_title_->text(); }

}  // namespace railyard::ui
