// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: when a segment-log read should ask for its block's pages before touching
// them.
//
// Why: segment blocks (about 4 KiB) lie at any offset, so nearly every block straddles two pages.
// The mappings are MADV_RANDOM (read-around would evict useful pages for nothing), so when the log
// is not in the page cache (a memory limit: docs/benchmarks.md), touching a block faulted its two
// pages in one after the other, two disk round trips per read. madvise(MADV_WILLNEED) over the
// block's pages first makes them one request. It costs a system call, which a read served from
// the page cache (a few microseconds in all) should not pay, so it is given only while reads are
// seen to wait on the disk: for the next kAdvisedReads reads after a read slower than kSlowRead.
// Only one read in kTimedEvery is timed (ShouldTime): two clock reads were about 5% of a read from
// the page cache, and while the disk is in play nearly every read is slow, so a sample finds it
// within a few reads and keeps the advice going (several samples fall in each advised run).
//
// Thread safety: all methods may be called concurrently (relaxed atomics; a lost update only
// shifts when advice starts or stops by a read).

#include <atomic>
#include <chrono>
#include <cstdint>

namespace railyard::storage {

class BlockPrefetchPolicy {
 public:
  // Far above a read from the page cache, below one from the disk.
  static constexpr std::chrono::microseconds kSlowRead{25};
  static constexpr uint32_t kAdvisedReads = 64;
  static constexpr uint32_t kTimedEvery = 16;

  // Whether this read should be timed and handed to Observe: one in kTimedEvery on each thread.
  static bool ShouldTime() {
    thread_local uint32_t reads = 0;
    return ++reads % kTimedEvery == 0;
  }

  // Whether this read should advise its block's pages first.
  bool ShouldAdvise() {
    const uint32_t left = advised_left_.load(std::memory_order_relaxed);
    if (left == 0) return false;
    advised_left_.store(left - 1, std::memory_order_relaxed);
    return true;
  }
  // How long a read's touch of its block took.
  void Observe(std::chrono::nanoseconds took) {
    if (took >= kSlowRead) advised_left_.store(kAdvisedReads, std::memory_order_relaxed);
  }

 private:
  std::atomic<uint32_t> advised_left_{0};
};

}  // namespace railyard::storage
