// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: what the LSM index maps a document id to.

#include <cstdint>

namespace railyard::storage {

// Where a document lives in the segment log: constant-time to load.
struct DocAddress {
  uint32_t segment = 0;
  uint32_t block_offset = 0;
  uint16_t index = 0;  // Position within the block.
  friend bool operator==(const DocAddress&, const DocAddress&) = default;
};

enum class EntryKind : uint8_t {
  kPut = 1,
  kDelete = 2,     // A tombstone: hides older entries until a compaction includes the oldest index.
  kCorrupted = 3,  // The log record that wrote this id was damaged: reads say so, never stale data.
};

struct IndexValue {
  EntryKind kind = EntryKind::kPut;
  DocAddress address;
};

struct IndexEntry {
  uint64_t id = 0;
  IndexValue value;
};

}  // namespace railyard::storage
