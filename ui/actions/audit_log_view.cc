// SPDX-License-Identifier: Apache-2.0
#include "ui/actions/audit_log_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/actions/audit_log.h"
#include "ui/actions/audit_log_model.h"
#include "ui/views/read_only_table.h"

namespace railyard::ui {

AuditLogView::AuditLogView(const AuditLog* log, QWidget* parent) : QWidget(parent), log_(log) {
  search_ = new QLineEdit(this);
  search_->setPlaceholderText(tr("Search user, node, action, detail, result"));
  search_->setClearButtonEnabled(true);
  node_ = new QComboBox(this);
  action_ = new QComboBox(this);
  status_ = new QLabel(this);
  model_ = new AuditLogModel(log, this);
  table_ = MakeReadOnlyTable(model_, this);

  auto* filters = new QHBoxLayout;
  filters->addWidget(search_, 1);
  filters->addWidget(new QLabel(tr("Node:"), this));
  filters->addWidget(node_);
  filters->addWidget(new QLabel(tr("Action:"), this));
  filters->addWidget(action_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(filters);
  layout->addWidget(table_, 1);
  layout->addWidget(status_);

  connect(search_, &QLineEdit::textChanged, this, &AuditLogView::Refresh);
  connect(node_, &QComboBox::currentIndexChanged, this, &AuditLogView::Refresh);
  connect(action_, &QComboBox::currentIndexChanged, this, &AuditLogView::Refresh);
  Refresh();
}

void AuditLogView::RefillFilters() {
  // Keep the current choices while the lists grow.
  for (auto [box, values] :
       {std::pair{node_, log_->Nodes()}, std::pair{action_, log_->Actions()}}) {
    const QString current = box->currentData().toString();
    const QSignalBlocker block(box);
    box->clear();
    box->addItem(tr("all"), QString());
    for (const QString& v : values) box->addItem(v, v);
    box->setCurrentIndex(std::max(0, box->findData(current)));
  }
}

void AuditLogView::Refresh() {
  RefillFilters();
  AuditQuery query;
  query.text = search_->text().trimmed();
  query.node = node_->currentData().toString();
  query.action = action_->currentData().toString();
  model_->SetQuery(query);
  const QString& error = model_->ErrorString();
  status_->setText(!error.isEmpty() ? error
                   : log_->IsOpen()
                       ? tr("%n entry(ies) in %1", "", model_->rowCount()).arg(log_->Path())
                       : tr("The audit log is not open."));
}

}  // namespace railyard::ui
