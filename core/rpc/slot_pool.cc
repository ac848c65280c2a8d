// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/slot_pool.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace railyard::rpc {

SlotPool::SlotPool(size_t capacity)
    : capacity_(capacity == 0 ? 1 : capacity), idle_bits_((capacity_ + 63) / 64, 0) {
  // Retiring entries can briefly push the number of live handles past capacity; reserve for twice
  // that so the common case never allocates.
  entries_.reserve(2 * capacity_);
  position_.reserve(2 * capacity_);
  order_.reserve(capacity_);
}

SlotPool::Handle SlotPool::AllocateHandle() {
  Handle handle;
  if (!free_handles_.empty()) {
    handle = free_handles_.back();
    free_handles_.pop_back();
  } else {
    handle = static_cast<Handle>(entries_.size());
    entries_.emplace_back();
    position_.push_back(0);
  }
  entries_[handle] = Entry{};
  entries_[handle].allocated = true;
  return handle;
}

void SlotPool::FreeHandle(Handle handle) {
  entries_[handle] = Entry{};
  free_handles_.push_back(handle);
}

void SlotPool::SetIdleBit(size_t position, bool idle) {
  const uint64_t mask = uint64_t{1} << (position % 64);
  if (idle) {
    idle_bits_[position / 64] |= mask;
  } else {
    idle_bits_[position / 64] &= ~mask;
  }
}

void SlotPool::RebuildPositions(size_t from) {
  for (size_t p = from; p < order_.size(); ++p) {
    position_[order_[p]] = static_cast<uint32_t>(p);
    SetIdleBit(p, !entries_[order_[p]].busy);
  }
  for (size_t p = order_.size(); p < capacity_; ++p) SetIdleBit(p, false);
}

void SlotPool::InsertMember(Handle handle) {
  assert(order_.size() < capacity_);
  entries_[handle].member = true;
  const auto at =
      std::upper_bound(order_.begin(), order_.end(), handle,
                       [this](Handle a, Handle b) { return Before(entries_[a], entries_[b]); });
  const size_t from = static_cast<size_t>(at - order_.begin());
  order_.insert(at, handle);
  RebuildPositions(from);
}

void SlotPool::EraseMember(Handle handle) {
  assert(entries_[handle].member);
  const size_t from = position_[handle];
  order_.erase(order_.begin() + static_cast<std::ptrdiff_t>(from));
  entries_[handle].member = false;
  RebuildPositions(from);
}

SlotPool::Admission SlotPool::Offer(uint32_t server, uint32_t slot, uint32_t tie_break) {
  Admission result;
  Entry candidate;
  candidate.server = server;
  candidate.slot = slot;
  candidate.tie_break = tie_break;
  if (full()) {
    const Handle worst = order_.back();
    if (!Before(candidate, entries_[worst])) return result;  // kRejected
    result.kind = Admission::Kind::kReplaced;
    result.evicted = worst;
    result.evicted_still_busy = entries_[worst].busy;
    EraseMember(worst);
    if (!result.evicted_still_busy) FreeHandle(worst);
  } else {
    result.kind = Admission::Kind::kAdded;
  }
  const Handle handle = AllocateHandle();
  entries_[handle].server = server;
  entries_[handle].slot = slot;
  entries_[handle].tie_break = tie_break;
  InsertMember(handle);
  result.handle = handle;
  return result;
}

void SlotPool::SetServerDraining(uint32_t server, bool draining) {
  bool changed = false;
  for (const Handle handle : order_) {
    Entry& e = entries_[handle];
    if (e.server == server && e.draining != draining) {
      e.draining = draining;
      changed = true;
    }
  }
  if (!changed) return;
  std::stable_sort(order_.begin(), order_.end(),
                   [this](Handle a, Handle b) { return Before(entries_[a], entries_[b]); });
  RebuildPositions(0);
}

SlotPool::Handle SlotPool::AcquireAt(size_t position) {
  SetIdleBit(position, false);
  const Handle handle = order_[position];
  Entry& e = entries_[handle];
  e.busy = true;
  ++e.requests;
  return handle;
}

std::optional<SlotPool::Handle> SlotPool::AcquireLowestIdle() {
  for (size_t word = 0; word < idle_bits_.size(); ++word) {
    const uint64_t bits = idle_bits_[word];
    if (bits != 0) return AcquireAt(word * 64 + static_cast<size_t>(std::countr_zero(bits)));
  }
  return std::nullopt;
}

std::optional<SlotPool::Handle> SlotPool::AcquireLowestIdle(std::span<const uint32_t> avoid) {
  if (avoid.empty()) return AcquireLowestIdle();
  for (size_t word = 0; word < idle_bits_.size(); ++word) {
    for (uint64_t bits = idle_bits_[word]; bits != 0; bits &= bits - 1) {
      const size_t position = word * 64 + static_cast<size_t>(std::countr_zero(bits));
      const uint32_t server = entries_[order_[position]].server;
      if (std::find(avoid.begin(), avoid.end(), server) == avoid.end()) return AcquireAt(position);
    }
  }
  return AcquireLowestIdle();
}

bool SlotPool::Acquire(Handle handle) {
  if (handle >= entries_.size()) return false;
  Entry& e = entries_[handle];
  if (!e.member || e.busy) return false;
  e.busy = true;
  ++e.requests;
  SetIdleBit(position_[handle], false);
  return true;
}

bool SlotPool::Release(Handle handle) {
  Entry& e = entries_[handle];
  assert(e.allocated && e.busy);
  e.busy = false;
  if (!e.member) {
    FreeHandle(handle);
    return true;
  }
  SetIdleBit(position_[handle], true);
  return false;
}

bool SlotPool::Remove(Handle handle) {
  if (handle >= entries_.size() || !entries_[handle].allocated) return false;
  if (entries_[handle].member) EraseMember(handle);
  if (entries_[handle].busy) return false;
  FreeHandle(handle);
  return true;
}

size_t SlotPool::idle_count() const {
  size_t n = 0;
  for (uint64_t bits : idle_bits_) n += static_cast<size_t>(std::popcount(bits));
  return n;
}

std::optional<uint32_t> SlotPool::worst_slot() const {
  if (!full()) return std::nullopt;
  return entries_[order_.back()].slot;
}

}  // namespace railyard::rpc
