// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QHash>
#include <QObject>
#include <QString>
#include <QVector>

#include "ui/models/cluster_state.h"
#include "ui/models/compaction_history_model.h"
#include "ui/models/doc_cache_figures.h"

namespace railyard::ui {

// One on-disk index as the compaction view draws it.
struct IndexBar {
  quint64 id = 0;
  quint64 entries = 0;
  quint64 bytes = 0;
  qint64 age_ms = 0;  // Node's clock: telemetry time minus the index's creation time.
  quint64 bloom_pages = 0;
  double p_no = 0;
};

// A past compaction set as the index stack draws it: the inputs that became `output`.
struct CompactionMark {
  quint64 output = 0;
  QVector<quint64> inputs;  // 0 stands for the in-memory index.
  // Each input's share of the output's bar, in the order of `inputs` (sizes last seen; equal
  // shares where unknown).
  QVector<double> shares;
  QString label;  // "mem + #12 + #13"
};

// True if `ids` are distinct members of `order` (index ids in age order) that sit next to each
// other in it, in any order: what a node accepts for a manual compaction.
bool IndexesAreAdjacent(const QVector<quint64>& order, const QVector<quint64>& ids);

// The storage shape of one node: its on-disk indexes newest first, the in-memory index's fill,
// the compaction sets it ran, and write amplification. Recomputed once per frame in which the
// node changed.
//
// Write amplification, exactly:
//   lifetime  = index_entry_writes / (writes + deletes), where index_entry_writes counts every
//               entry ever written to an index file (flushes and compactions, kept in the store's
//               manifest across restarts) and writes + deletes count the document writes the
//               node accepted since its process started. After a restart the lifetime figure
//               overstates (old index writes over new document writes).
//   observed  = the same ratio over the deltas since this model first saw the node in any frame,
//               shown or not (rebased when a counter goes backwards, i.e. after a restart); kept
//               per node, so switching nodes neither resets nor restarts it; -1 until documents
//               were written since.
// Neither counts segment-log bytes: this is the index's amplification, which compaction drives.
//
// Thread safety: GUI thread only.
class CompactionModel : public QObject {
  Q_OBJECT
 public:
  explicit CompactionModel(ClusterState* state, QObject* parent = nullptr);

  // -1 shows nothing.
  void SetNode(int node_index);
  int Node() const { return node_; }
  QString NodeName() const;  // Empty for none.
  bool HasData() const { return has_data_; }

  const QVector<IndexBar>& Indexes() const { return indexes_; }  // Newest first.
  quint64 TotalIndexEntries() const;
  quint64 LargestIndexEntries() const;
  quint64 MemtableEntries() const { return memtable_entries_; }
  quint64 MemtableCapacity() const { return memtable_capacity_; }
  double MemtableFill() const;  // 0..1
  // The on-disk indexes (newest first) the next automatic flush merges with the in-memory index:
  // the engine's rule (storage/compaction_rule.h) applied to the in-memory index at capacity,
  // which is when the node flushes it. Empty: the flush writes a new index on its own.
  QVector<quint64> NextFlushInputs() const;
  // Entries an index had when last shown (inputs of past compactions are gone from the stack); 0
  // if never seen.
  quint64 LastSeenEntries(quint64 index_id) const { return seen_entries_.value(index_id); }
  // The newest kDrawnCompactions sets that merged two or more inputs into an index, newest first.
  QVector<CompactionMark> RecentSets() const;
  // Newest first; accumulated while the model watches the node (the node keeps a short history).
  const QVector<CompactionEvent>& Compactions() const { return history_->Events(); }
  // The same events as an item model for a table view; owned by this model.
  CompactionHistoryModel* History() const { return history_; }

  quint64 IndexEntryWrites() const { return index_entry_writes_; }
  quint64 DocumentWrites() const { return document_writes_; }
  double WriteAmplification() const;          // Lifetime; 0 before any document write.
  double ObservedWriteAmplification() const;  // -1 until documents were written while watched.
  // The node's document cache; the interval hit rate covers the time since the previous
  // snapshot this model saw of the node.
  const DocCacheFigures& Cache() const { return cache_.Figures(); }

  // True if `ids` are distinct on-disk indexes that sit next to each other in age order (what
  // the node accepts for a manual compaction). Their order does not matter.
  bool AreAdjacent(const QVector<quint64>& ids) const;

  static constexpr int kMaxCompactions = CompactionHistoryModel::kMaxRows;
  // The newest compaction sets the index stack draws (their inputs' sizes are kept).
  static constexpr int kDrawnCompactions = 4;

 Q_SIGNALS:
  void Changed();

 private:
  // The counters the "while watched" figure starts from, per node.
  struct Baseline {
    quint64 index_entry_writes = 0;
    quint64 document_writes = 0;
  };

  void OnFrame(const QVector<int>& changed);
  void NoteBaseline(int node);
  void Recompute();
  void Reset();

  ClusterState* state_;
  int node_ = -1;
  bool has_data_ = false;
  QVector<IndexBar> indexes_;
  CompactionHistoryModel* const history_;
  quint64 memtable_entries_ = 0;
  quint64 memtable_capacity_ = 0;
  quint64 index_entry_writes_ = 0;
  quint64 document_writes_ = 0;
  QHash<int, Baseline> baselines_;  // By node index; forgotten only when the nodes are reset.
  QHash<quint64, quint64> seen_entries_;
  DocCacheTracker cache_;
};

}  // namespace railyard::ui
