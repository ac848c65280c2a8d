// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>
#include <QPalette>
#include <QString>
#include <QVector>
#include <functional>

#include "ui/views/plot_event_marks.h"

namespace railyard::ui {

class ClusterState;
class ThroughputModel;

// A mark's colour: what happened to a node (restart, lame duck) stands out; commands, alerts and
// the console's own down and up marks take the palette's muted text colour.
QColor MarkColor(const QString& command, const QPalette& palette);

// The marks of ThroughputModel's events (commands by anyone, restarts, lame ducks, down and up,
// alerts) for a time axis: of node `node` alone, labelled by what happened, or, with
// ThroughputModel::kCluster, of every node that `keep` accepts (all without it), each label
// naming its node. One list for every chart, so Throughput and the Replication lag plot mark the
// same moments the same way.
QVector<EventMark> ThroughputMarks(const ThroughputModel& model, const ClusterState& state,
                                   int node, const QPalette& palette,
                                   const std::function<bool(int node)>& keep = {});

}  // namespace railyard::ui
