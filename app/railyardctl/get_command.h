// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>

#include "app/railyardctl/admin_commands.h"

namespace railyard::ctl {

struct GetOptions {
  AdminTarget target;  // The cluster and its admin token (a viewer's will do).
  uint64_t id = 0;
  bool all_nodes = false;
  std::string timeout = "5s";   // Per node, to connect and answer.
  std::string data_token_file;  // Without --all-nodes: the docservice's reader token.
  uint64_t min_position = 0;    // Without --all-nodes: read at least this queue position.
  cluster::TlsFlags data_tls;   // Without --all-nodes: TLS to the docservices.
};

// `railyardctl get ID`: the document's bytes, read through the docservice and balanced over the
// nodes that serve. With --all-nodes: where the updater and every replica hold it (the entry, its
// size and checksum, the queue position it came from, which index and Bloom page answered) and
// which nodes are behind (cluster/doc_copies.h).
CLI::App* AddGetCommand(CLI::App& app, GetOptions& options);
int RunGet(const GetOptions& options);

}  // namespace railyard::ctl
