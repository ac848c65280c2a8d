// SPDX-License-Identifier: Apache-2.0
#include "ui/views/overview_view.h"

#include <QComboBox>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/models/overview_model.h"

namespace railyard::ui {

OverviewView::OverviewView(ClusterState* state, QWidget* parent)
    : OverviewView(new OverviewModel(state), parent) {
  model_->setParent(this);
}

OverviewView::OverviewView(OverviewModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      filter_(new OverviewFilterModel(this)),
      name_filter_(new QLineEdit(this)),
      state_filter_(new QComboBox(this)),
      table_(new QTableView(this)),
      no_matches_(new QLabel(this)) {
  filter_->setSourceModel(model_);
  name_filter_->setPlaceholderText(tr("Filter by name"));
  name_filter_->setClearButtonEnabled(true);
  // Only a click puts the cursor here: a Space meant for the replay's play/pause must not become
  // a filter that hides every node (C8).
  name_filter_->setFocusPolicy(Qt::ClickFocus);
  state_filter_->addItem(tr("All states"), -1);
  for (NodeHealth h : {NodeHealth::kServing, NodeHealth::kLameDuck, NodeHealth::kStarting,
                       NodeHealth::kTokenRefused, NodeHealth::kUnreachable, NodeHealth::kStale,
                       NodeHealth::kConnecting}) {
    state_filter_->addItem(NodeHealthName(h), static_cast<int>(h));
  }
  auto* filters = new QHBoxLayout;
  filters->addWidget(name_filter_, 1);
  filters->addWidget(new QLabel(tr("State:"), this));
  filters->addWidget(state_filter_);

  table_->setModel(filter_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(OverviewModel::kName, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->setAlternatingRowColors(true);
  table_->verticalHeader()->hide();
  // Fixed row heights and column widths: nothing is measured per frame.
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->horizontalHeader()->setDefaultSectionSize(88);
  table_->setColumnWidth(OverviewModel::kName, 150);
  // The state is the reason an operator looks: wide enough for the longest ("stale since
  // 12:34:56", "token refused") with its colour square, never "unreach..." (C11).
  int state_width = 0;
  for (const QString& text :
       {tr("stale since %1").arg(QStringLiteral("00:00:00")),
        NodeHealthName(NodeHealth::kTokenRefused), NodeHealthName(NodeHealth::kUnreachable),
        NodeHealthName(NodeHealth::kLameDuck)}) {
    state_width = std::max(state_width, fontMetrics().horizontalAdvance(text));
  }
  table_->setColumnWidth(OverviewModel::kState, state_width + fontMetrics().height() + 24);
  table_->setColumnWidth(OverviewModel::kRole, 95);
  table_->setColumnWidth(OverviewModel::kLag, 120);
  // Never narrower than a column's heading (its widest line, with room for the sort arrow),
  // measured once; the last column stretches anyway.
  const QFontMetrics heading_metrics(table_->horizontalHeader()->font());
  for (int c = 0; c + 1 < filter_->columnCount(); ++c) {
    const QString heading = filter_->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
    table_->setColumnWidth(
        c, std::max(table_->columnWidth(c), heading_metrics.size(0, heading).width() + 32));
  }

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(filters);
  no_matches_->setObjectName(QStringLiteral("overviewNoMatches"));
  no_matches_->hide();
  layout->addWidget(no_matches_);
  layout->addWidget(table_, 1);
  // Says which side each figure comes from, so a client's p99 is never read as a server's.
  auto* legend =
      new QLabel(tr("<i>Italic rows</i> are clients: their figures are the calls they "
                    "made (client-side p99). Other rows are servers: what they served "
                    "(server-side p99). \u2014: no traffic. n/a: not kept in this history "
                    "(a flight recorder's 24 hours, Prometheus)."),
                 this);
  legend->setObjectName(QStringLiteral("overviewLegend"));
  legend->setWordWrap(true);
  layout->addWidget(legend);

  connect(name_filter_, &QLineEdit::textChanged, filter_, &OverviewFilterModel::SetNameFilter);
  const auto update_no_matches = [this] {
    const bool hidden_all = filter_->rowCount() == 0 && model_->rowCount() > 0;
    if (hidden_all) {
      no_matches_->setText(
          tr("No node matches the filters (%1 nodes hidden).").arg(model_->rowCount()));
    }
    no_matches_->setVisible(hidden_all);
  };
  connect(filter_, &QAbstractItemModel::rowsInserted, this, update_no_matches);
  connect(filter_, &QAbstractItemModel::rowsRemoved, this, update_no_matches);
  connect(filter_, &QAbstractItemModel::modelReset, this, update_no_matches);
  connect(filter_, &QAbstractItemModel::layoutChanged, this, update_no_matches);
  connect(state_filter_, &QComboBox::currentIndexChanged, this,
          [this](int) { filter_->SetHealthFilter(state_filter_->currentData().toInt()); });
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (selecting_ || !current.isValid()) return;
            Q_EMIT NodeSelected(filter_->mapToSource(current).row());
          });
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    if (!selecting_) Q_EMIT NodesSelected(SelectedNodes());
  });
}

QVector<int> OverviewView::SelectedNodes() const {
  QVector<int> nodes;
  for (const QModelIndex& row : table_->selectionModel()->selectedRows()) {
    nodes << filter_->mapToSource(row).row();
  }
  return nodes;
}

void OverviewView::SetNode(int node_index) {
  if (node_index < 0 || node_index >= model_->rowCount()) return;
  const QModelIndex index = filter_->mapFromSource(model_->index(node_index, 0));
  if (!index.isValid()) return;
  QItemSelectionModel* selection = table_->selectionModel();
  // Already current: a click made it so, and the view is still working out the selection it
  // makes (Ctrl adds the row to several); clearing it here would undo that.
  if (selection->currentIndex().row() == index.row()) return;
  selecting_ = true;
  selection->setCurrentIndex(index,
                             QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  selecting_ = false;
}

}  // namespace railyard::ui
