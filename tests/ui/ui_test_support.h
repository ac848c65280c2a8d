// SPDX-License-Identifier: Apache-2.0
#pragma once

// Small pieces the console's model and widget tests share. Header-only; tests link railyard_ui
// (screenshots of widgets: tests/ui/screenshot.h).

#include <QAbstractItemModel>
#include <QString>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "railyard/admin.pb.h"
#include "tests/ui/console_fixture.h"
#include "ui/models/cluster_state.h"

namespace railyard::ui::testing {

// A table model's cell as text.
inline QString Cell(const QAbstractItemModel& model, int row, int column,
                    int role = Qt::DisplayRole) {
  return model.index(row, column).data(role).toString();
}

// A serving node's snapshot with nothing else in it, for tests to fill.
inline std::shared_ptr<admin::Telemetry> MakeTelemetry(const std::string& name, int64_t unix_ms) {
  auto t = std::make_shared<admin::Telemetry>();
  t->set_node(name);
  t->set_unix_ms(unix_ms);
  t->set_state(admin::NODE_SERVING);
  return t;
}

// Applies one node's snapshot to `state` as a frame of its own, at `now_ms`.
inline void ApplySnapshot(ClusterState& state, int node, std::shared_ptr<admin::Telemetry> t,
                          qint64 now_ms) {
  state.ApplyFrame({{node, std::move(t), {}}}, now_ms);
}

// The same, at the snapshot's own time.
inline void ApplySnapshot(ClusterState& state, int node, std::shared_ptr<admin::Telemetry> t) {
  const qint64 now_ms = t->unix_ms();
  ApplySnapshot(state, node, std::move(t), now_ms);
}

// Declares `g`'s nodes the first time (admin addresses 10.0.N/250.N%250:7001) and applies frame
// `frame` at its time: of every node, or of those in `only`; those in `lame` draining.
inline void ApplyGenerated(ClusterState* state, const GeneratedCluster& g, int frame,
                           const std::set<int>& lame = {}, const std::set<int>& only = {}) {
  if (state->NodeCount() == 0) {
    for (int n = 0; n < g.nodes; ++n) {
      state->AddNode(QString("10.0.%1.%2:7001").arg(n / 250).arg(n % 250),
                     QString::fromStdString(g.NodeName(n)));
    }
  }
  const std::vector<std::vector<int>> assignment = g.Assignment(frame);
  std::vector<ClusterState::Update> updates;
  for (int n = 0; n < g.nodes; ++n) {
    if (!only.empty() && !only.count(n)) continue;
    updates.push_back({n, std::make_shared<const admin::Telemetry>(
                              g.Telemetry(n, frame, lame.count(n) > 0, assignment))});
  }
  state->ApplyFrame(updates, g.TimeOf(frame));
}

}  // namespace railyard::ui::testing
