// SPDX-License-Identifier: Apache-2.0
#pragma once
// A real railyard node in this process (docstore, docservice, admin service on 127.0.0.1 with
// OS-chosen ports) with a Boxcar load generator keeping it busy: what the console's window tests
// watch. Header-only; the test links railyard_node and railyard_load.

#include <QString>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/load/load_generator.h"
#include "core/node/node.h"

namespace railyard::ui::testing {

struct LoadedNode {
  std::unique_ptr<node::Node> node;
  std::unique_ptr<load::LoadGenerator> load;

  // Opens the node in `data_dir` with these admin tokens and starts the load; false on failure.
  // `flight_interval`: its flight recorder's (zero: the node's default).
  bool Start(const std::string& name, const std::string& data_dir, const std::string& client_name,
             std::vector<std::string> viewer_tokens, std::vector<std::string> operator_tokens,
             std::chrono::milliseconds flight_interval = {}) {
    node::NodeOptions options;
    if (flight_interval.count() > 0) options.flight.interval = flight_interval;
    options.name = name;
    options.data_dir = data_dir;
    options.io_threads = 1;
    options.worker_threads = 2;
    options.storage.memtable_entries = 500;
    options.admin.viewer_tokens = std::move(viewer_tokens);
    options.admin.operator_tokens = std::move(operator_tokens);
    if (!node::Node::Open(options, &node).ok()) return false;
    load::LoadOptions load_options;
    load_options.servers = {node->endpoint()};
    load_options.pool_size = 4;
    load_options.concurrency = 2;
    load_options.keys = 5000;
    load_options.client_name = client_name;
    load = std::make_unique<load::LoadGenerator>(load_options);
    return load->Start().ok();
  }

  // The load first, so that no call is in flight when the node goes.
  void Stop() {
    if (load) load->Stop();
    if (node) node->Shutdown(std::chrono::milliseconds(500));
  }

  QString AdminAddress() const { return QString::fromStdString(node->admin_endpoint().ToString()); }
};

}  // namespace railyard::ui::testing
