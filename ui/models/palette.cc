// SPDX-License-Identifier: Apache-2.0
#include "ui/models/palette.h"

#include <algorithm>

namespace railyard::ui {

QColor RankColor(int rank, int count) {
  const double t = count <= 1 ? 0.0 : std::clamp(double(rank) / double(count - 1), 0.0, 1.0);
  // Saturated green for the best slots, pale grey-green for the worst: brightness carries rank.
  return QColor::fromHsvF(0.33, 0.85 - 0.65 * t, 0.95 - 0.35 * t);
}

QColor HealthColor(NodeHealth health) {
  switch (health) {
    case NodeHealth::kServing:
      return QColor(0x2e, 0x9d, 0x4f);
    case NodeHealth::kLameDuck:
      return QColor(0xd9, 0x8c, 0x1f);
    case NodeHealth::kUnreachable:
      return QColor(0xc6, 0x28, 0x28);
    case NodeHealth::kStale:
      return QColor(0x8e, 0x8e, 0x8e);
    case NodeHealth::kConnecting:
      return QColor(0x5c, 0x7c, 0xb8);
    case NodeHealth::kStarting:
      return QColor(0x3f, 0x9f, 0xb0);
    case NodeHealth::kTokenRefused:
      return QColor(0x8e, 0x24, 0xaa);  // Not red: the node is fine, our token is not.
  }
  return Qt::gray;
}

QColor ReplicaStateColor(admin::ReplicaState state) {
  switch (state) {
    case admin::REPLICA_TAILING:
      return HealthColor(NodeHealth::kServing);
    case admin::REPLICA_CATCHING_UP:
      return HealthColor(NodeHealth::kLameDuck);
    case admin::REPLICA_DISCONNECTED:
      return HealthColor(NodeHealth::kUnreachable);
    default:
      return HealthColor(NodeHealth::kStale);
  }
}

QColor ChangeHighlight(double age01) {
  QColor c(0xff, 0xd5, 0x4f);
  c.setAlphaF(std::clamp(1.0 - age01, 0.0, 1.0));
  return c;
}

}  // namespace railyard::ui
