// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/view_export.h"

#include <QAbstractItemModel>
#include <QFile>
#include <QPixmap>
#include <QStringList>
#include <QTableView>

#include "ui/models/bloom_model.h"
#include "ui/models/flow_model.h"
#include "ui/support/csv_field.h"
#include "ui/views/bloom_view.h"
#include "ui/views/flow_view.h"
#include "ui/views/throughput_view.h"

namespace railyard::ui {

namespace {

QString BloomCsv(const BloomModel& model) {
  QString csv = QStringLiteral("index,page,recent_requests,p_no,usefulness,resident\n");
  for (int r = 0; r < model.RowCount(); ++r) {
    for (const BloomCell& cell : model.Row(r).pages) {
      if (!cell.valid) continue;
      csv += QStringLiteral("%1,%2,%3,%4,%5,%6\n")
                 .arg(cell.index)
                 .arg(cell.page)
                 .arg(cell.recent_requests, 0, 'g', 8)
                 .arg(cell.p_no, 0, 'g', 8)
                 .arg(cell.usefulness, 0, 'g', 8)
                 .arg(cell.resident ? 1 : 0);
    }
  }
  return csv;
}

// One row per client -> server edge, as the flow view draws them.
QString FlowCsv(const FlowModel& model) {
  QString csv = QStringLiteral("client,server,requests_per_s,slots,busy,source\n");
  for (const FlowModel::Edge& edge : model.Edges()) {
    QStringList slots;
    for (quint32 slot : edge.slots) slots << QString::number(slot);
    csv += QStringLiteral("%1,%2,%3,%4,%5,%6\n")
               .arg(CsvField(model.Clients()[size_t(edge.client)].name),
                    CsvField(model.Servers()[size_t(edge.server)].name))
               .arg(edge.rate ? QString::number(*edge.rate, 'g', 8) : QString())
               .arg(slots.join(QLatin1Char(' ')))
               .arg(edge.busy)
               .arg(edge.from_pool ? QStringLiteral("client pool") : QStringLiteral("slot table"));
  }
  return csv;
}

bool WriteText(const QString& path, const QString& text, QString* error) {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(text.toUtf8()) < 0 ||
      !file.flush()) {
    if (error) *error = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

}  // namespace

QString ModelCsv(const QAbstractItemModel* model, const QTableView* table) {
  QList<int> columns;
  for (int c = 0; c < model->columnCount(); ++c) {
    if (!table || !table->isColumnHidden(c)) columns << c;
  }
  QStringList fields;
  for (int c : columns) {
    // Two-line headings ("Server\np99 ms") become one line.
    fields << CsvField(model->headerData(c, Qt::Horizontal, Qt::DisplayRole)
                           .toString()
                           .replace(QLatin1Char('\n'), QLatin1Char(' ')));
  }
  QString csv = fields.join(QLatin1Char(',')) + QLatin1Char('\n');
  for (int r = 0; r < model->rowCount(); ++r) {
    fields.clear();
    for (int c : columns) fields << CsvField(model->index(r, c).data(Qt::DisplayRole).toString());
    csv += fields.join(QLatin1Char(',')) + QLatin1Char('\n');
  }
  return csv;
}

bool ExportViewPng(QWidget* view, const QString& path, QString* error) {
  if (auto* throughput = qobject_cast<ThroughputView*>(view)) {
    return throughput->ExportPng(path, error);
  }
  const QPixmap pixmap = view->grab();
  if (pixmap.isNull() || !pixmap.save(path, "PNG")) {
    if (error) *error = QObject::tr("cannot write the image to %1").arg(path);
    return false;
  }
  return true;
}

bool ExportViewCsv(QWidget* view, const QString& path, QString* error) {
  if (auto* throughput = qobject_cast<ThroughputView*>(view)) {
    return throughput->ExportCsv(path, error);
  }
  if (auto* bloom = qobject_cast<BloomView*>(view)) {
    return WriteText(path, BloomCsv(*bloom->Model()), error);
  }
  if (auto* flow = qobject_cast<FlowView*>(view)) {
    return WriteText(path, FlowCsv(*flow->Model()), error);
  }
  // The first table in creation order is the view's main one (the slot matrix before its detail
  // list, the compaction history, the audit log).
  const QTableView* table = view->findChild<QTableView*>();
  if (!table || !table->model()) {
    if (error) *error = QObject::tr("this view has no table to export");
    return false;
  }
  return WriteText(path, ModelCsv(table->model(), table), error);
}

}  // namespace railyard::ui
