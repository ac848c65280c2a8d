// SPDX-License-Identifier: Apache-2.0
#include "ui/sources/history_frames.h"

#include <algorithm>

namespace railyard::ui {

namespace {

// The silence between the last frame and `before_ms`, one stale allowance at a time (a node is
// stale once its telemetry is more than that old).
void AddSilence(std::vector<HistoryFrame>* frames, qint64 before_ms, qint64 stale_after_ms) {
  if (frames->empty()) return;
  for (qint64 t = frames->back().now_ms + stale_after_ms + 1; t < before_ms; t += stale_after_ms) {
    frames->push_back({{}, t});
  }
}

}  // namespace

std::vector<HistoryFrame> HistoryFrames(const std::vector<NodeHistory>& histories, qint64 frame_ms,
                                        qint64 stale_after_ms, qint64 until_ms) {
  struct Snapshot {
    qint64 t_ms;
    int node;
    const std::shared_ptr<const admin::Telemetry>* telemetry;
  };
  std::vector<Snapshot> all;
  for (const NodeHistory& h : histories) {
    for (const auto& t : h.snapshots) {
      if (t) all.push_back({t->unix_ms(), h.node, &t});
    }
  }
  // Stable: a node's own snapshots keep their order where two share a millisecond.
  std::stable_sort(all.begin(), all.end(),
                   [](const Snapshot& a, const Snapshot& b) { return a.t_ms < b.t_ms; });
  frame_ms = std::max<qint64>(1, frame_ms);
  stale_after_ms = std::max<qint64>(1, stale_after_ms);
  std::vector<HistoryFrame> frames;
  qint64 frame_start = 0;
  for (const Snapshot& s : all) {
    if (!frames.empty() && s.t_ms < frame_start + frame_ms) {
      HistoryFrame& frame = frames.back();
      auto same = std::find_if(frame.updates.begin(), frame.updates.end(),
                               [&](const ClusterState::Update& u) { return u.node == s.node; });
      if (same != frame.updates.end()) {
        same->telemetry = *s.telemetry;
        same->at_ms = s.t_ms;
      } else {
        frame.updates.push_back({s.node, *s.telemetry, {}, s.t_ms});
      }
      frame.now_ms = s.t_ms;
      continue;
    }
    AddSilence(&frames, s.t_ms, stale_after_ms);
    frame_start = s.t_ms;
    frames.push_back({{{s.node, *s.telemetry, {}, s.t_ms}}, s.t_ms});
  }
  AddSilence(&frames, until_ms + 1, stale_after_ms);
  return frames;
}

}  // namespace railyard::ui
