// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace railyard::load {

// The queue position each acknowledged write reached, by document id, so that a later read of the
// id can carry it as min_position (read-your-writes across replicas). Memory is bounded: ids share
// a fixed number of entries by hash, and a shared entry keeps the highest position any of its ids
// reached. That is never too low for any of them, only sometimes higher than needed, which can
// cost a replica a short wait but never lets a read see an older document.
//
// Thread safety: every method may be called from any thread (lock-free).
class WritePositions {
 public:
  // `entries` is rounded up to a power of two; 8 bytes each.
  explicit WritePositions(size_t entries = size_t{1} << 16);

  void Acknowledged(uint64_t id, uint64_t position);
  // What a read of `id` must wait for; 0 when no write of it (or of an id sharing its entry)
  // was acknowledged.
  uint64_t For(uint64_t id) const;

 private:
  size_t IndexOf(uint64_t id) const;

  size_t mask_;
  std::unique_ptr<std::atomic<uint64_t>[]> positions_;
};

}  // namespace railyard::load
