// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: the memory a store's on-disk indexes may be copied into
// (Options::index_memory_budget).
//
// Why: under a memory limit, mapped index pages and segment blocks share the page cache, and a
// random read often had to fault in its index page as well as its document's block (measured in
// docs/benchmarks.md: 1.6 pages per read at 512 MB). Index pages in the process's own memory stay
// resident ahead of the page cache, as RocksDB keeps its index blocks in its heap.
//
// Thread safety: all methods may be called concurrently.

#include <atomic>
#include <cstdint>

namespace railyard::storage {

class IndexMemoryBudget {
 public:
  explicit IndexMemoryBudget(uint64_t budget) : budget_(budget) {}
  IndexMemoryBudget(const IndexMemoryBudget&) = delete;
  IndexMemoryBudget& operator=(const IndexMemoryBudget&) = delete;

  // Takes `bytes` if they fit beside what is taken: the sum never exceeds the budget.
  bool TryReserve(uint64_t bytes) {
    uint64_t used = used_.load(std::memory_order_relaxed);
    do {
      if (bytes > budget_ || used > budget_ - bytes) return false;
    } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
    return true;
  }
  // Gives back what TryReserve took.
  void Release(uint64_t bytes) { used_.fetch_sub(bytes, std::memory_order_relaxed); }

  uint64_t budget() const { return budget_; }
  uint64_t used() const { return used_.load(std::memory_order_relaxed); }

 private:
  const uint64_t budget_;
  std::atomic<uint64_t> used_{0};
};

}  // namespace railyard::storage
