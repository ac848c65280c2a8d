// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtGlobal>
#include <algorithm>
#include <climits>
#include <cstddef>

namespace railyard::ui {

// Where a node's past that comes later (ClusterState::NodePastApplied) goes in a series the
// console keeps of it: after its last real sample before the past's first snapshot (none: before
// the series), up to its first real sample at or after the past's last one. The console stamps a
// sample when it receives it, a little after the node's clock stamped the snapshot, so the sample
// it last heard before a silence can lie a few milliseconds inside the past that the node's
// recorder kept (the past starts just after that snapshot's own time): such samples are replaced by
// the node's record of the same moments.
struct PastHole {
  qint64 from_ms = LLONG_MIN;  // The real sample before; LLONG_MIN: before the series.
  qint64 to_ms = LLONG_MAX;    // The real sample after; LLONG_MAX: none.
  size_t kept = 0;             // series[0, kept) stays as it is.
  bool fillable = false;       // False: nothing the console lacks there.
};

// `is_gap(sample)`: the series' own mark of a silence. There is a hole only where the console
// marked one between from and to, or heard nothing for longer than `stale_after_ms` there (it was
// stalled itself); past the newest real sample live polling appends, so there is none.
template <typename Series, typename IsGap>
PastHole FindPastHole(const Series& series, qint64 first_past_ms, qint64 last_past_ms,
                      qint64 stale_after_ms, IsGap is_gap) {
  PastHole hole;
  size_t split = 0;
  while (split < series.size() && series[split].t_ms < first_past_ms) ++split;
  for (size_t i = split; i-- > 0;) {
    if (!is_gap(series[i])) {
      hole.from_ms = series[i].t_ms;
      hole.kept = i + 1;
      break;
    }
  }
  bool marked = false;
  qint64 longest_silence = 0;
  qint64 heard = hole.from_ms;  // The last real sample so far.
  for (size_t i = hole.kept; i < series.size(); ++i) {
    if (is_gap(series[i])) {
      marked = true;
      continue;
    }
    if (heard != LLONG_MIN) longest_silence = std::max(longest_silence, series[i].t_ms - heard);
    heard = series[i].t_ms;
    if (series[i].t_ms >= last_past_ms) {
      hole.to_ms = series[i].t_ms;
      break;
    }
  }
  hole.fillable = hole.from_ms == LLONG_MIN ||
                  (hole.to_ms != LLONG_MAX && (marked || longest_silence > stale_after_ms));
  return hole;
}

}  // namespace railyard::ui
