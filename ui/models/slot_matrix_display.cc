// SPDX-License-Identifier: Apache-2.0
// SlotMatrixModel: what the views read (cells, headers, figures); frames are applied in
// slot_matrix_model.cc, columns arranged in slot_matrix_columns.cc.
#include "ui/models/slot_matrix_model.h"

#include <QBrush>

#include "ui/models/palette.h"

namespace railyard::ui {

namespace {

QColor Blend(const QColor& base, const QColor& over) {
  const double a = over.alphaF();
  return QColor::fromRgbF(float(base.redF() * (1 - a) + over.redF() * a),
                          float(base.greenF() * (1 - a) + over.greenF() * a),
                          float(base.blueF() * (1 - a) + over.blueF() * a));
}

QString SlotsText(const SmallArray<SlotMatrixModel::Slot, 2>& slots) {
  QString text;
  for (const SlotMatrixModel::Slot& s : slots) {
    if (!text.isEmpty()) text += QLatin1Char(' ');
    text += QString::number(s.slot);
  }
  if (text.size() > SlotMatrixModel::kCellChars.size()) {
    return SlotMatrixModel::tr("%1 slots").arg(slots.size());
  }
  return text;
}

QVariant RateText(double per_s) {
  if (per_s < 0) return {};
  return QString::number(per_s, 'f', per_s < 10 ? 1 : 0);
}

}  // namespace

// Hatched, so the column reads as "nothing here, on purpose" rather than blank.
QBrush SlotMatrixModel::MarkedColumnBrush() {
  return QBrush(QColor(128, 128, 128, 140), Qt::BDiagPattern);
}

int SlotMatrixModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ClientCount();
}

int SlotMatrixModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kFirstServerColumn + static_cast<int>(server_of_column_.size());
}

int SlotMatrixModel::PoolSize(int row) const {
  const Client& c = client(row);
  return c.pool_capacity >= 0 ? c.pool_capacity : c.connections;
}

int SlotMatrixModel::BusyCount(int row) const {
  const Client& c = client(row);
  return c.pool_busy >= 0 ? c.pool_busy : c.busy;
}

QVariant SlotMatrixModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= ClientCount()) return {};
  const int row = index.row();
  if (role == kClientIdRole) return client(row).id;
  if (index.column() < kFirstServerColumn) {
    if (role == Qt::TextAlignmentRole) return QVariant::fromValue(Qt::AlignCenter);
    if (role != Qt::DisplayRole) return {};
    const Client& c = client(row);
    switch (index.column()) {
      case kPoolColumn:
        return PoolSize(row);
      case kBusyColumn:
        return BusyCount(row);
      case kRetriesColumn:
        return RateText(c.retries_per_s);
      case kRejectionsColumn:
        return RateText(c.rejections_per_s);
      case kFailuresColumn:
        return RateText(c.failures_per_s);
    }
    return {};
  }
  const int server = ServerOfColumn(index.column());
  if (server < 0) return {};
  if (role == kServerMarkRole) return server_marks_[server];
  const Cell& c = cell(row, server);
  const qint64 age = c.changed_ms > 0 ? state_->NowMs() - c.changed_ms : kHighlightMs;
  const bool highlighted = age < kHighlightMs;
  switch (role) {
    case Qt::DisplayRole:
      if (c.slots.isEmpty()) return {};
      return SlotsText(c.slots);
    case Qt::TextAlignmentRole:
      return QVariant::fromValue(Qt::AlignCenter);
    case Qt::BackgroundRole: {
      const QColor highlight = ChangeHighlight(double(age) / double(kHighlightMs));
      if (c.slots.isEmpty()) {
        if (highlighted) return highlight;
        return server_marks_[server].isEmpty() ? QVariant() : QVariant(MarkedColumnBrush());
      }
      const QColor base = RankColor(c.rank, std::max(1, client(row).connections));
      return highlighted ? Blend(base, highlight) : base;
    }
    case Qt::ForegroundRole:
      return c.slots.isEmpty() ? QVariant() : QVariant(QColor(Qt::black));
    case Qt::ToolTipRole: {
      QString tip = QStringLiteral("%1 on %2").arg(client(row).name, server_names_[server]);
      if (!server_marks_[server].isEmpty())
        tip += QStringLiteral(" (%1)").arg(server_marks_[server]);
      for (const Slot& s : c.slots) {
        tip += QStringLiteral("\nslot %1: %2, %3 requests")
                   .arg(s.slot)
                   .arg(s.busy ? tr("busy") : tr("idle"))
                   .arg(s.requests);
      }
      return tip;
    }
    case kSlotsRole: {
      QVariantList slots;
      for (const Slot& s : c.slots) slots.push_back(s.slot);
      return slots;
    }
    case kHighlightedRole:
      return highlighted;
  }
  return {};
}

QVariant SlotMatrixModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role == kServerMarkRole && orientation == Qt::Horizontal) {
    const int server = ServerOfColumn(section);
    return server >= 0 ? QVariant(server_marks_[server]) : QVariant();
  }
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  if (orientation == Qt::Vertical) {
    if (section < 0 || section >= ClientCount()) return {};
    const Client& c = client(section);
    if (role == Qt::ToolTipRole)
      return QStringLiteral("client id %1").arg(c.id, 16, 16, QLatin1Char('0'));
    return c.name;
  }
  if (section == kPoolColumn) return role == Qt::DisplayRole ? tr("Pool") : tr("Pool size");
  if (section == kBusyColumn) return role == Qt::DisplayRole ? tr("Busy") : tr("Busy connections");
  const bool display = role == Qt::DisplayRole;
  if (section == kRetriesColumn) {
    return display ? tr("Retry/s") : tr("Retries per second, from the client's own telemetry");
  }
  if (section == kRejectionsColumn) {
    return display ? tr("Rej/s")
                   : tr("Rejections (pool full) per second, from the client's own telemetry");
  }
  if (section == kFailuresColumn) {
    return display ? tr("Fail/s")
                   : tr("Failed requests per second, from the client's own telemetry");
  }
  const int server = ServerOfColumn(section);
  if (server < 0) return {};
  const QString& mark = server_marks_[server];
  if (display) return mark.isEmpty() ? server_names_[server] : server_names_[server] + "\n" + mark;
  const ServerTotals& t = totals_[server];
  return tr("%1 (%2)\n%3 slots in use, %4 busy")
      .arg(server_names_[server],
           mark.isEmpty() ? NodeHealthName(state_->Node(server).health) : mark)
      .arg(t.in_use)
      .arg(t.busy);
}

}  // namespace railyard::ui
