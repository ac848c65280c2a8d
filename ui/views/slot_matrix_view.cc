#include "ui/views/slot_matrix_view.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/models/slot_matrix_client_detail.h"
#include "ui/models/slot_matrix_model.h"

namespace railyard::ui {

SlotMatrixView::SlotMatrixView(ClusterState* state, QWidget* parent)
    : QWidget(parent),
      model_(new SlotMatrixModel(state, this)),
      detail_(new ClientDetailModel(model_, state, this)),
      matrix_(new QTableView(this)),
      detail_view_(new QTableView(this)),
      detail_title_(new QLabel(tr("Select a client to list its connections"), this)) {
  matrix_->setModel(model_);
  matrix_->setSelectionBehavior(QAbstractItemView::SelectRows);
  matrix_->setSelectionMode(QAbstractItemView::SingleSelection);
  matrix_->setShowGrid(true);
  matrix_->setWordWrap(false);
  // 20000 cells: fixed sizes, so scrolling and updates never measure contents.
  const int row_height = fontMetrics().height() + 4;
  matrix_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  matrix_->verticalHeader()->setDefaultSectionSize(row_height);
  matrix_->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  matrix_->horizontalHeader()->setDefaultSectionSize(
      fontMetrics().horizontalAdvance(QStringLiteral("00 00 00")) + 8);
  matrix_->setToolTip(
      tr("Slots each client holds on each server; brightest: the client's best "
         "slots; yellow: changed in the last 2 s"));

  detail_view_->setModel(detail_);
  detail_view_->verticalHeader()->hide();
  detail_view_->horizontalHeader()->setStretchLastSection(true);
  detail_view_->verticalHeader()->setDefaultSectionSize(row_height);
  detail_view_->setSelectionMode(QAbstractItemView::NoSelection);

  auto* side = new QWidget(this);
  auto* side_layout = new QVBoxLayout(side);
  side_layout->setContentsMargins(0, 0, 0, 0);
  side_layout->addWidget(detail_title_);
  side_layout->addWidget(detail_view_, 1);

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(matrix_);
  splitter->addWidget(side);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(splitter);

  connect(matrix_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) SelectClient(current.row());
          });
  // The title says what the rows below show, recounted whenever they change (each frame).
  connect(detail_, &ClientDetailModel::Refreshed, this,
          [this] { detail_title_->setText(detail_->Summary()); });
}

void SlotMatrixView::SelectClient(int row) {
  if (row < 0 || row >= model_->ClientCount()) return;
  detail_->SetClientId(model_->client(row).id);
}

QString SlotMatrixView::DetailTitle() const { return detail_title_->text(); }

}  // namespace railyard::ui
