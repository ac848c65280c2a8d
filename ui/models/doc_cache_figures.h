// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtGlobal>

#include "railyard/admin.pb.h"

namespace railyard::ui {

// A node's document cache (StorageStats.cache) as the storage views show it: fill against the
// budget and the hit rate, over the last polling interval and since the node started.
struct DocCacheFigures {
  bool enabled = false;  // A budget is set.
  quint64 budget_bytes = 0;
  quint64 bytes = 0;
  quint64 entries = 0;
  quint64 invalidations = 0;
  double hit_rate = -1;  // hits / (hits + misses) since start; -1 before any lookup.
  // The same over the interval since the previous snapshot (interval_ms long); -1 with no
  // lookups in it, on the first snapshot, or when the counters went back (a restart).
  double interval_hit_rate = -1;
  qint64 interval_ms = 0;
};

// Follows one node's snapshots and derives DocCacheFigures, the interval figure from the
// difference to the previous snapshot it saw.
//
// Thread safety: none; the owner serialises access.
class DocCacheTracker {
 public:
  // A snapshot of the node; one already seen (same unix_ms) changes nothing.
  void Update(const admin::Telemetry& telemetry);
  void Reset() { *this = DocCacheTracker(); }
  const DocCacheFigures& Figures() const { return figures_; }

 private:
  DocCacheFigures figures_;
  bool has_previous_ = false;
  qint64 previous_ms_ = 0;
  quint64 previous_hits_ = 0;
  quint64 previous_misses_ = 0;
};

}  // namespace railyard::ui
