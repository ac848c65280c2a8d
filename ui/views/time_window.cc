// SPDX-License-Identifier: Apache-2.0
#include "ui/views/time_window.h"

#include <QDateTime>
#include <QObject>
#include <algorithm>

namespace railyard::ui {

QString WindowChoiceText(int minutes) {
  if (minutes % 60 != 0) {
    return minutes == 1 ? QObject::tr("1 minute") : QObject::tr("%1 minutes").arg(minutes);
  }
  return minutes == 60 ? QObject::tr("1 hour") : QObject::tr("%1 hours").arg(minutes / 60);
}

TimeWindow OrderedRange(qint64 from_ms, qint64 to_ms, qint64 min_ms) {
  TimeWindow range{std::min(from_ms, to_ms), std::max(from_ms, to_ms)};
  if (range.to_ms - range.from_ms < min_ms) {
    const qint64 middle = range.from_ms + (range.to_ms - range.from_ms) / 2;
    range = {middle - min_ms / 2, middle - min_ms / 2 + min_ms};
  }
  return range;
}

TimeWindow FollowedWindow(qint64 first_ms, qint64 last_ms, qint64 window_ms, qint64 min_span_ms,
                          qint64 now_ms, const RecordingSpan& recording) {
  if (last_ms >= 0) {
    return {last_ms - std::clamp(last_ms - first_ms, min_span_ms, window_ms), last_ms};
  }
  if (!recording.Empty()) {
    const qint64 at = std::clamp(now_ms, recording.start_ms, recording.end_ms);
    const qint64 from = std::max(recording.start_ms, at - window_ms);
    return {from, std::max(at, std::min(recording.end_ms, from + window_ms))};
  }
  const qint64 now = now_ms > 0 ? now_ms : QDateTime::currentMSecsSinceEpoch();
  return {now - window_ms, now};
}

}  // namespace railyard::ui
