// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "app/railyardctl/admin_commands.h"

namespace railyard::ctl {

struct SnapshotOptions {
  AdminTarget target;  // The cluster, with an operator token.
  std::string node;    // Its name in the cluster file (or its address); may be empty with one node.
  std::string name;    // Empty: "<node>-<UTC date and time>".
};

// `railyardctl snapshot NODE`: a consistent copy of the node's store at one queue position, made
// on its host in <data_dir>/snapshots/<name> with hard links (admin.Snapshot,
// storage::DocStore::Snapshot); a new replica starts from it without fetching the queue again.
CLI::App* AddSnapshotCommand(CLI::App& app, SnapshotOptions& options);
int RunSnapshot(const SnapshotOptions& options);

}  // namespace railyard::ctl
