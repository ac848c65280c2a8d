// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>

#include "ui/models/cluster_state.h"

namespace railyard::ui {

// Colours the models hand to views (Qt::BackgroundRole, plot pens), so every view agrees.

// A slot's colour by its rank among a pool's connections: rank 0 (the lowest slot) brightest,
// fading towards `count - 1`.
QColor RankColor(int rank, int count);
QColor HealthColor(NodeHealth health);
// A replica's state: tailing green, catching up amber, disconnected red, stopped grey.
QColor ReplicaStateColor(admin::ReplicaState state);
// A brief highlight for cells that changed (a swap, a lost server), fading as `age01` goes 0..1.
QColor ChangeHighlight(double age01);

}  // namespace railyard::ui
