// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <QVector>

namespace railyard::admin {
class StorageStats;
}

namespace railyard::ui {

// One compaction set the node ran: inputs merged into output.
struct CompactionEvent {
  QVector<quint64> inputs;  // 0 stands for the in-memory index (a flush).
  quint64 output = 0;
  quint64 entries_written = 0;
  quint64 bytes_written = 0;
  qint64 duration_us = 0;
  bool manual = false;
  qint64 finished_unix_ms = 0;

  bool IsFlush() const { return inputs.contains(0); }
  // "mem + #12 + #13 → #15"
  QString Describe() const;
};

// The compaction sets one node ran, newest first, as a table: when each finished, what it
// merged, entries and bytes written, how long it took, and whether it was a flush, automatic or
// manual. A node reports only its last few; this model keeps every one it was shown (up to
// kMaxRows), so the history grows while the console watches.
//
// New events are inserted where they belong (beginInsertRows), so a view keeps its selection
// and scroll position; only Clear() resets the model. Qt::DisplayRole gives the text the console
// shows, Qt::TextAlignmentRole right-aligns the figures.
//
// Thread safety: GUI thread only.
class CompactionHistoryModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    kFinished,
    kCompactionSet,
    kEntriesWritten,
    kBytesWritten,
    kDuration,
    kKind,
    kColumnCount
  };
  static constexpr int kMaxRows = 500;  // The oldest beyond this are dropped.

  explicit CompactionHistoryModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  // Newest first (by finish time; events finished at the same time in the order first seen).
  const QVector<CompactionEvent>& Events() const { return events_; }

  // Adds the compactions `storage` reports that are not shown yet (an event is known by its
  // output index and finish time).
  void AddReported(const admin::StorageStats& storage);
  // Forgets every event (another node, or none).
  void Clear();

 private:
  void Insert(const CompactionEvent& event);

  QVector<CompactionEvent> events_;
};

}  // namespace railyard::ui
