// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "core/base/mutex.h"
#include "core/rpc/slot_info.h"

namespace railyard::rpc {

// Live counters of one server connection, written by the connection, read by snapshots.
struct SlotActivity {
  std::atomic<uint64_t> requests{0};
  std::atomic<bool> busy{false};
};

// The server's slot allocator. Every live connection holds exactly one slot; a new connection gets
// the lowest free slot; a released slot is free again at once.
//
// Thread safety: all methods may be called concurrently.
class SlotTable {
 public:
  struct Holder {
    uint64_t client_id = 0;
    std::string client_name;
    std::string peer;
    std::shared_ptr<const SlotActivity> activity;
  };

  SlotTable() = default;
  SlotTable(const SlotTable&) = delete;
  SlotTable& operator=(const SlotTable&) = delete;

  // Returns the lowest slot no live connection holds.
  uint32_t Allocate(Holder holder);
  // REQUIRES: `slot` was returned by Allocate and not released since.
  void Release(uint32_t slot);

  size_t live() const;
  // Live slots in ascending order.
  std::vector<SlotInfo> Snapshot() const;

 private:
  struct Row {
    bool live = false;
    Holder holder;
    std::chrono::system_clock::time_point since;
  };

  mutable base::Mutex mu_;
  // Indexed by slot; grows to the high-water mark of live connections.
  std::vector<Row> rows_ RAILYARD_GUARDED_BY(mu_);
  // Free slots below rows_.size(), lowest on top.
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> free_
      RAILYARD_GUARDED_BY(mu_);
  size_t live_ RAILYARD_GUARDED_BY(mu_) = 0;
};

}  // namespace railyard::rpc
