// SPDX-License-Identifier: Apache-2.0
#include "ui/views/throughput_marks.h"

#include <climits>

#include "ui/models/cluster_state.h"
#include "ui/models/throughput_model.h"
#include "ui/views/plot_style.h"

namespace railyard::ui {

QColor MarkColor(const QString& command, const QPalette& palette) {
  if (command == ThroughputEvent::kRestart) return SeriesColor(3);
  if (command == ThroughputEvent::kLameDuck || command == ThroughputEvent::kLameDuckLeft) {
    return SeriesColor(1);
  }
  return palette.color(QPalette::PlaceholderText);
}

QVector<EventMark> ThroughputMarks(const ThroughputModel& model, const ClusterState& state,
                                   int node, const QPalette& palette,
                                   const std::function<bool(int node)>& keep) {
  const bool alone = node != ThroughputModel::kCluster;
  QVector<EventMark> marks;
  for (const ThroughputEvent& e : model.Events(node, LLONG_MIN, LLONG_MAX)) {
    if (!alone && keep && !keep(e.node)) continue;
    // Over several nodes, say whose it was.
    const QString label = alone || e.node >= state.NodeCount()
                              ? e.command
                              : QStringLiteral("%1 %2").arg(e.command, state.Node(e.node).name);
    marks.push_back({double(e.t_ms) / 1000.0, label, MarkColor(e.command, palette), e.command});
  }
  return marks;
}

}  // namespace railyard::ui
