// SPDX-License-Identifier: Apache-2.0
#pragma once

// Alert rules for a test on this machine: the disk rules (DISK_FREE_SHARE) are about the machine,
// whose disk may be nearly full (CI runs saw 10% and less free), and a test that is not about the
// disk must not see them fire because of it. Each disk rule whose threshold is at or above the
// share `data_dir`'s file system has free now is lowered to half that share, so it still fires if
// the test itself fills the disk. Free space not known: the rules unchanged. Header-only; needs
// railyard_cluster and railyard_node.

#include <QtGlobal>
#include <algorithm>
#include <optional>
#include <string>

#include "core/cluster/alert_evaluator.h"
#include "core/node/process_metrics.h"
#include "railyard/alerts.pb.h"

namespace railyard::testing {

inline alerts::Rules RulesForThisDisk(alerts::Rules rules, const std::string& data_dir) {
  const std::optional<node::DiskFigures> disk = node::ReadDiskFigures(data_dir);
  const std::optional<double> free_share =
      disk ? cluster::DiskFreeShare(disk->ToProto()) : std::nullopt;
  if (!free_share) return rules;
  for (alerts::Rule& r : *rules.mutable_rule()) {
    if (r.figure() == alerts::DISK_FREE_SHARE && r.threshold() >= *free_share) {
      r.set_threshold(std::max(*free_share / 2, 1e-6));
      qInfo("the machine's disk is %.1f%% free: %s fires below %.2f%% in this test",
            *free_share * 100, r.name().c_str(), r.threshold() * 100);
    }
  }
  return rules;
}

}  // namespace railyard::testing
