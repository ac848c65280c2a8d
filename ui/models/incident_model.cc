// SPDX-License-Identifier: Apache-2.0
#include "ui/models/incident_model.h"

#include <QFile>
#include <QTextStream>
#include <algorithm>
#include <climits>

#include "ui/support/csv_field.h"

namespace railyard::ui {

IncidentModel::IncidentModel(ThroughputModel* throughput, QObject* parent)
    : QAbstractTableModel(parent), throughput_(throughput) {
  connect(throughput_, &ThroughputModel::SamplesAdded, this, &IncidentModel::Refresh);
  connect(throughput_, &ThroughputModel::Cleared, this, &IncidentModel::Refresh);
  Refresh();
}

void IncidentModel::Refresh() {
  if (throughput_->EventsRevision() == revision_) return;
  revision_ = throughput_->EventsRevision();
  beginResetModel();
  events_ = throughput_->Events(ThroughputModel::kCluster, LLONG_MIN, LLONG_MAX);
  std::reverse(events_.begin(), events_.end());
  endResetModel();
}

QString IncidentModel::NodeName(int node) const {
  const ClusterState* state = throughput_->State();
  return node >= 0 && node < state->NodeCount() ? state->Node(node).name : QString::number(node);
}

int IncidentModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(events_.size());
}

int IncidentModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumns;
}

QVariant IncidentModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kTime:
      return tr("Time");
    case kNode:
      return tr("Node");
    case kWhat:
      return tr("What");
    case kDetail:
      return tr("Detail");
  }
  return {};
}

QVariant IncidentModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= events_.size()) return {};
  const ThroughputEvent& e = events_[index.row()];
  if (role == kTimeRole) return e.t_ms;
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kTime:
      return ClockText(e.t_ms);
    case kNode:
      return NodeName(e.node);
    case kWhat:
      return e.command;
    case kDetail:
      return e.detail;
  }
  return {};
}

bool IncidentModel::ExportCsv(const QString& path, QString* error) const {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) {
    if (error) *error = tr("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  QTextStream out(&file);
  out << "time_unix_ms,time,node,what,detail\n";
  for (auto it = events_.rbegin(); it != events_.rend(); ++it) {
    out << it->t_ms << ',' << ClockText(it->t_ms) << ',' << CsvField(NodeName(it->node)) << ','
        << CsvField(it->command) << ',' << CsvField(it->detail) << '\n';
  }
  out.flush();
  if (file.error() != QFileDevice::NoError) {
    if (error) *error = tr("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

}  // namespace railyard::ui
