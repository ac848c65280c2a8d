// SPDX-License-Identifier: Apache-2.0
#include "ui/models/compaction_history_model.h"

#include <QDateTime>
#include <QLocale>
#include <QStringList>
#include <algorithm>

#include "railyard/admin.pb.h"

namespace railyard::ui {

namespace {

QString Duration(qint64 us) {
  if (us < 1000) return QStringLiteral("%1 \u00b5s").arg(us);
  if (us < 1000000) return QStringLiteral("%1 ms").arg(us / 1000.0, 0, 'f', 1);
  return QStringLiteral("%1 s").arg(us / 1e6, 0, 'f', 2);
}

}  // namespace

QString CompactionEvent::Describe() const {
  QStringList parts;
  for (quint64 input : inputs) {
    parts << (input == 0 ? QStringLiteral("mem") : QStringLiteral("#%1").arg(input));
  }
  return parts.join(QStringLiteral(" + ")) + QStringLiteral(" \u2192 #%1").arg(output);
}

CompactionHistoryModel::CompactionHistoryModel(QObject* parent) : QAbstractTableModel(parent) {}

int CompactionHistoryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(events_.size());
}

int CompactionHistoryModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant CompactionHistoryModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const CompactionEvent& e = events_[index.row()];
  const int column = index.column();
  if (role == Qt::TextAlignmentRole) {
    const bool figure = column == kEntriesWritten || column == kBytesWritten || column == kDuration;
    return QVariant::fromValue((figure ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
  }
  if (role != Qt::DisplayRole) return {};
  const QLocale locale;
  switch (column) {
    case kFinished:
      return QDateTime::fromMSecsSinceEpoch(e.finished_unix_ms)
          .toString(QStringLiteral("yyyy-MM-dd hh:mm:ss.zzz"));
    case kCompactionSet:
      return e.Describe();
    case kEntriesWritten:
      return locale.toString(e.entries_written);
    case kBytesWritten:
      return locale.formattedDataSize(qint64(e.bytes_written));
    case kDuration:
      return Duration(e.duration_us);
    case kKind:
      return e.manual ? tr("manual") : e.IsFlush() ? tr("flush") : tr("automatic");
  }
  return {};
}

QVariant CompactionHistoryModel::headerData(int section, Qt::Orientation orientation,
                                            int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return QAbstractTableModel::headerData(section, orientation, role);
  }
  switch (section) {
    case kFinished:
      return tr("Finished");
    case kCompactionSet:
      return tr("Compaction set");
    case kEntriesWritten:
      return tr("Entries written");
    case kBytesWritten:
      return tr("Bytes written");
    case kDuration:
      return tr("Duration");
    case kKind:
      return tr("Kind");
  }
  return {};
}

void CompactionHistoryModel::AddReported(const admin::StorageStats& storage) {
  // The node reports its last few compactions oldest first.
  for (const admin::CompactionInfo& info : storage.compactions()) {
    const bool known = std::any_of(events_.begin(), events_.end(), [&](const auto& c) {
      return c.output == info.output() && c.finished_unix_ms == info.finished_unix_ms();
    });
    if (known) continue;
    CompactionEvent event;
    for (uint64_t input : info.inputs()) event.inputs.push_back(input);
    event.output = info.output();
    event.entries_written = info.entries_written();
    event.bytes_written = info.bytes_written();
    event.duration_us = info.duration_us();
    event.manual = info.manual();
    event.finished_unix_ms = info.finished_unix_ms();
    Insert(event);
  }
  if (events_.size() > kMaxRows) {
    beginRemoveRows({}, kMaxRows, int(events_.size()) - 1);
    events_.resize(kMaxRows);
    endRemoveRows();
  }
}

void CompactionHistoryModel::Insert(const CompactionEvent& event) {
  // After every event that finished at the same time or later: newest first, and ties in the
  // order seen.
  const auto at = std::find_if(events_.begin(), events_.end(), [&](const CompactionEvent& e) {
    return e.finished_unix_ms < event.finished_unix_ms;
  });
  const int row = int(at - events_.begin());
  if (row >= kMaxRows) return;  // Older than everything kept: it would be dropped at once.
  beginInsertRows({}, row, row);
  events_.insert(row, event);
  endInsertRows();
}

void CompactionHistoryModel::Clear() {
  if (events_.isEmpty()) return;
  beginResetModel();
  events_.clear();
  endResetModel();
}

}  // namespace railyard::ui
