// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/slot_table.h"

#include <cassert>

namespace railyard::rpc {

uint32_t SlotTable::Allocate(Holder holder) {
  base::MutexLock lock(mu_);
  uint32_t slot;
  if (!free_.empty()) {
    slot = free_.top();
    free_.pop();
  } else {
    slot = static_cast<uint32_t>(rows_.size());
    rows_.emplace_back();
  }
  Row& row = rows_[slot];
  assert(!row.live);
  row.live = true;
  row.holder = std::move(holder);
  row.since = std::chrono::system_clock::now();
  ++live_;
  return slot;
}

void SlotTable::Release(uint32_t slot) {
  base::MutexLock lock(mu_);
  assert(slot < rows_.size() && rows_[slot].live);
  rows_[slot] = Row{};
  free_.push(slot);
  --live_;
}

size_t SlotTable::live() const {
  base::MutexLock lock(mu_);
  return live_;
}

std::vector<SlotInfo> SlotTable::Snapshot() const {
  base::MutexLock lock(mu_);
  std::vector<SlotInfo> out;
  out.reserve(live_);
  for (uint32_t slot = 0; slot < rows_.size(); ++slot) {
    const Row& row = rows_[slot];
    if (!row.live) continue;
    SlotInfo info;
    info.slot = slot;
    info.client_id = row.holder.client_id;
    info.client_name = row.holder.client_name;
    info.peer = row.holder.peer;
    info.connected_since = row.since;
    if (row.holder.activity) {
      info.requests = row.holder.activity->requests.load(std::memory_order_relaxed);
      info.busy = row.holder.activity->busy.load(std::memory_order_relaxed);
    }
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace railyard::rpc
