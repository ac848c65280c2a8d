// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/rpc/endpoint.h"

namespace railyard::ctl {

// How `railyardctl load` was told where to send its calls.
struct LoadTargetFlags {
  std::vector<std::string> servers;  // -s/--server: one node, or independent ones.
  std::string updater;               // --updater
  std::vector<std::string> read;     // --read
  std::string cluster_file;          // --cluster
  std::string token_file;            // For asking nodes their role when the file does not say.
  bool unreplicated = false;         // --unreplicated: every --server takes writes.
};

// One serving node, as the load prints it.
struct LoadNode {
  rpc::Endpoint service;
  std::string role;  // "updater", "replica", or "server" (an independent node).
};

// Where the load's writes and reads go.
struct LoadTargets {
  std::optional<rpc::Endpoint> updater;  // Unset: writes go over `readers` (one or independent).
  std::vector<LoadNode> readers;         // Reads are balanced over these.
};

// Resolves the flags: --updater with --read (default: the updater alone); or a cluster file,
// whose members' roles come from the file or else from each node's telemetry; or --server. When
// the load writes (`writes`), exactly one node may take them: several --server nodes need
// --unreplicated (independent stores), a cluster file needs exactly one updater. On a problem,
// prints what is wrong and how to say it instead, and returns false.
bool ResolveLoadTargets(const LoadTargetFlags& flags, bool writes, LoadTargets* out);

}  // namespace railyard::ctl
