// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtGlobal>
#include <memory>
#include <vector>

#include "railyard/admin.pb.h"
#include "ui/models/cluster_state.h"

namespace railyard::ui {

// What one node's flight recorder gave for a backfill: its snapshots, oldest first.
struct NodeHistory {
  int node = -1;  // ClusterState index.
  std::vector<std::shared_ptr<const admin::Telemetry>> snapshots;
};

struct HistoryFrame {
  std::vector<ClusterState::Update> updates;
  qint64 now_ms = 0;
};

// The nodes' recorded pasts as the frames a live console would have applied, oldest first, for
// ClusterState::ApplyHistoryFrame: one frame per `frame_ms` of recorded time (a node's latest
// snapshot in it wins), each update at its snapshot's own time. Through any stretch longer than
// `stale_after_ms` without a snapshot of any node, an empty frame every `stale_after_ms` advances
// the clock, so the state marks the silent nodes stale and the charts show the gap where they
// were down (docs/figures.md, "History": a history never fills one in); so do the last frames, up
// to `until_ms` (when the pasts were read), for the nodes whose recorders stopped before then.
std::vector<HistoryFrame> HistoryFrames(const std::vector<NodeHistory>& histories, qint64 frame_ms,
                                        qint64 stale_after_ms, qint64 until_ms);

}  // namespace railyard::ui
