// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QtGlobal>

namespace railyard::ui {

// The time range a chart that follows the newest samples shows (cluster ms).
struct TimeWindow {
  qint64 from_ms = 0;
  qint64 to_ms = 0;
};

// Where the recording being replayed lies; empty (end <= start) live.
struct RecordingSpan {
  qint64 start_ms = 0;
  qint64 end_ms = 0;
  bool Empty() const { return end_ms <= start_ms; }
};

// A window's name in a window box: "1 minute", "15 minutes", "1 hour", "24 hours".
QString WindowChoiceText(int minutes);

// [from, to] in order and at least min_ms wide (widened around its middle): what a chart shows
// when asked for a custom range, however the ends were given.
TimeWindow OrderedRange(qint64 from_ms, qint64 to_ms, qint64 min_ms);

// With samples from first_ms to last_ms: ends at the newest and reaches back to the first, growing
// until it is window_ms wide (never narrower than min_span_ms), so a fresh start or a short
// recording fills the chart. Without samples (last_ms < 0): in a replay, the part of the recording
// around now_ms (the player's position); live, the window ending at now_ms, or at the wall clock
// when the cluster clock has not started (0).
TimeWindow FollowedWindow(qint64 first_ms, qint64 last_ms, qint64 window_ms, qint64 min_span_ms,
                          qint64 now_ms, const RecordingSpan& recording);

}  // namespace railyard::ui
