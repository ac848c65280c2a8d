// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: which units of an immutable, memory-mapped file (index pages, segment
// blocks) passed their checksum recently.
//
// Profiled on the seed's benchmark, hashing a whole 4 KiB index page and a whole segment block on
// every read was half of the read time, while each unit was read tens of times. A unit's checksum
// is now verified on its first read in each period (kPeriodSeconds) and remembered until the
// period ends, so damage that appears after a unit was verified (a page evicted and read back
// wrong from the disk) is still caught, on the unit's first read in the next period. A unit that
// fails is never marked: every read of it keeps failing.
//
// Thread safety: all methods may be called concurrently; a mark is one relaxed atomic word.

#include <time.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace railyard::storage {

class VerifiedMarks {
 public:
  static constexpr int64_t kPeriodSeconds = 60;

  // `slots` units, numbered [0, slots). `key` tells apart units that share a slot (a segment's
  // blocks are slotted by offset / 4 KiB and keyed by their offset); it must be below 2^56.
  explicit VerifiedMarks(size_t slots)
      : slots_(slots), marks_(std::make_unique<std::atomic<uint64_t>[]>(slots)) {}

  size_t slots() const { return slots_; }

  bool Verified(size_t slot, uint64_t key) const {
    return slot < slots_ && marks_[slot].load(std::memory_order_relaxed) == Mark(key);
  }
  void MarkVerified(size_t slot, uint64_t key) {
    if (slot < slots_) marks_[slot].store(Mark(key), std::memory_order_relaxed);
  }

 private:
  // Never 0, so a fresh (zeroed) slot is never verified. The coarse clock costs a few ns (vDSO).
  static uint64_t Epoch() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    return static_cast<uint64_t>(now.tv_sec / kPeriodSeconds) % 255 + 1;
  }
  static uint64_t Mark(uint64_t key) { return key << 8 | Epoch(); }

  const size_t slots_;
  std::unique_ptr<std::atomic<uint64_t>[]> marks_;
};

}  // namespace railyard::storage
