#include "ui/actions/audit_log_view.h"

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ui/actions/audit_log.h"

namespace railyard::ui {

AuditLogView::AuditLogView(const AuditLog* log, QWidget* parent) : QWidget(parent), log_(log) {
  search_ = new QLineEdit(this);
  search_->setPlaceholderText(tr("Search user, node, action, detail, result"));
  search_->setClearButtonEnabled(true);
  node_ = new QComboBox(this);
  action_ = new QComboBox(this);
  status_ = new QLabel(this);
  table_ = new QTableWidget(0, 7, this);
  table_->setHorizontalHeaderLabels({tr("Time"), tr("User"), tr("Node"), tr("Address"),
                                     tr("Action"), tr("Detail"), tr("Result")});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);

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

  connect(search_, &QLineEdit::textChanged, this, &AuditLogView::refresh);
  connect(node_, &QComboBox::currentIndexChanged, this, &AuditLogView::refresh);
  connect(action_, &QComboBox::currentIndexChanged, this, &AuditLogView::refresh);
  refresh();
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

void AuditLogView::refresh() {
  RefillFilters();
  AuditQuery query;
  query.text = search_->text().trimmed();
  query.node = node_->currentData().toString();
  query.action = action_->currentData().toString();
  QString error;
  const QVector<AuditEntry> entries = log_->Search(query, &error);
  table_->setRowCount(int(entries.size()));
  for (int row = 0; row < entries.size(); ++row) {
    const AuditEntry& e = entries[row];
    const QStringList cells = {
        QDateTime::fromMSecsSinceEpoch(e.unix_ms).toString("yyyy-MM-dd hh:mm:ss"),
        e.user,
        e.node_name,
        e.node_address,
        e.action,
        e.detail,
        e.result};
    for (int column = 0; column < cells.size(); ++column) {
      auto* item = new QTableWidgetItem(cells[column]);
      if (column == 6 && !e.ok) item->setForeground(QColor(0xc6, 0x28, 0x28));
      table_->setItem(row, column, item);
    }
  }
  status_->setText(!error.isEmpty() ? error
                   : log_->isOpen()
                       ? tr("%n entry(ies) in %1", "", int(entries.size())).arg(log_->path())
                       : tr("The audit log is not open."));
}

}  // namespace railyard::ui
