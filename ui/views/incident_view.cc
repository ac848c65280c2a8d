// SPDX-License-Identifier: Apache-2.0
#include "ui/views/incident_view.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/models/incident_model.h"
#include "ui/views/read_only_table.h"

namespace railyard::ui {

IncidentView::IncidentView(IncidentModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  table_ = MakeReadOnlyTable(model_, this);
  summary_ = new QLabel(this);
  auto* export_csv = new QPushButton(tr("Export CSV..."), this);
  auto* top = new QHBoxLayout;
  top->addWidget(summary_, 1);
  top->addWidget(export_csv);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(table_, 1);
  auto count = [this] {
    summary_->setText(tr("%1 events, newest first: down and up, restarts, commands by anyone, "
                         "alerts. Click one to show that moment.")
                          .arg(model_->rowCount()));
  };
  connect(model_, &QAbstractItemModel::modelReset, this, count);
  count();
  connect(table_, &QTableView::clicked, this, [this](const QModelIndex& index) {
    Q_EMIT JumpRequested(model_->data(index, IncidentModel::kTimeRole).toLongLong());
  });
  connect(export_csv, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export incidents"), QStringLiteral("incidents.csv"), tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    QString error;
    if (!ExportCsv(path, &error)) QMessageBox::warning(this, tr("Export incidents"), error);
  });
}

bool IncidentView::ExportCsv(const QString& path, QString* error) const {
  return model_->ExportCsv(path, error);
}

}  // namespace railyard::ui
