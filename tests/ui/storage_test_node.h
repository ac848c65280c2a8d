// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QTemporaryDir>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include "core/node/node.h"
#include "core/rpc/client.h"
#include "railyard/admin.pb.h"
#include "tests/support/admin_tokens.h"
#include "ui/models/cluster_state.h"

namespace railyard::ui::testing {

using railyard::testing::kOperatorToken;
using railyard::testing::kViewerToken;

// A real railyard node (docstore, docservice, admin service with a viewer and an operator token)
// on 127.0.0.1 with OS-chosen ports, in a temporary folder, with a Boxcar client to write to it.
// The in-memory index is small so flushes and compactions happen after a few thousand puts; Bloom
// pages are small (64 bytes) and the budget tight, so the pager has choices to make.
class StorageTestNode {
 public:
  struct Options {
    QString name = QStringLiteral("node1");
    size_t memtable_entries = 500;
    size_t bloom_page_bytes = 64;
    size_t bloom_budget_bytes = 1024;
  };

  StorageTestNode();
  ~StorageTestNode();

  // False with the reason in error() if the node or the client cannot start.
  bool Start(const Options& options);
  bool Start() { return Start(Options{}); }
  const QString& error() const { return error_; }

  // doc.Put of ids [first, first + count) through the Boxcar client; false on any failure.
  bool Put(uint64_t first, int count);
  // doc.Get of `count` ids from `first`; returns how many calls completed (found or not found).
  int Get(uint64_t first, int count);

  // Telemetry through the admin service with the viewer token, as the console's live source
  // reads it.
  std::shared_ptr<const admin::Telemetry> Telemetry();
  // Adds this node to `state` (once) and applies its current telemetry as one frame at the
  // telemetry's own time (or `now_ms` when given). Returns the node's index; -1 on failure.
  int Feed(ClusterState* state, qint64 now_ms = -1);

  node::Node& node() { return *node_; }
  QString adminAddress() const;

 private:
  QTemporaryDir dir_;
  std::unique_ptr<node::Node> node_;
  std::unique_ptr<rpc::Client> client_;
  QString error_;
};

// Polls `condition` every 20 ms (processing Qt events) until it holds or `timeout` passes (the
// default is generous, for a loaded machine).
bool WaitFor(const std::function<bool()>& condition,
             std::chrono::milliseconds timeout = std::chrono::seconds(20));

}  // namespace railyard::ui::testing
