// SPDX-License-Identifier: Apache-2.0
#include "ui/views/alerts_view.h"

#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/models/alert_model.h"
#include "ui/views/read_only_table.h"

namespace railyard::ui {

AlertsView::AlertsView(AlertModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  summary_ = new QLabel(this);
  active_ = MakeReadOnlyTable(model->ActiveTable(), this);
  history_ = MakeReadOnlyTable(model->HistoryTable(), this);
  auto* now = new QWidget(this);
  auto* now_layout = new QVBoxLayout(now);
  now_layout->setContentsMargins(0, 0, 0, 0);
  now_layout->addWidget(new QLabel(tr("<b>Now</b>"), now));
  now_layout->addWidget(active_);
  auto* past = new QWidget(this);
  auto* past_layout = new QVBoxLayout(past);
  past_layout->setContentsMargins(0, 0, 0, 0);
  past_layout->addWidget(new QLabel(tr("<b>History</b> (newest first)"), past));
  past_layout->addWidget(history_);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(now);
  split->addWidget(past);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);
  connect(model_, &AlertModel::AlertsChanged, this, &AlertsView::Refresh);
  connect(model_->ActiveTable(), &QAbstractItemModel::modelReset, this, &AlertsView::Refresh);
  Refresh();
}

QString AlertsView::Summary() const { return summary_->text(); }

void AlertsView::Refresh() {
  const int firing = model_->FiringCount();
  const int pending = static_cast<int>(model_->Active().size()) - firing;
  summary_->setText(tr("%1 firing, %2 pending; %3 rules (%4)")
                        .arg(firing)
                        .arg(pending)
                        .arg(model_->rules().rule_size())
                        .arg(model_->RulesSource()));
}

}  // namespace railyard::ui
