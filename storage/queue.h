// SPDX-License-Identifier: Apache-2.0
#pragma once

// The docstore queue as replication sees it (docs/formats.md, "Replication").

#include <cstdint>
#include <string>

namespace railyard::storage {

// A point in the queue: everything before `offset` of `segment` (and all earlier segments).
struct LogPosition {
  uint32_t segment = 0;
  uint64_t offset = 0;
  friend bool operator==(const LogPosition&, const LogPosition&) = default;
};

// A run of whole blocks read from the queue for a replica.
struct QueueChunk {
  LogPosition start;   // Where `blocks` begins (the next segment when `from` ended a closed one).
  std::string blocks;  // Verified blocks, byte-identical to the segment file.
  uint64_t entries = 0;
  // When the last block's first entry was written, if by this process (µs since the epoch); else 0.
  int64_t last_append_unix_us = 0;
};

// How far a position is behind the end of the queue.
struct QueueLag {
  uint64_t head = 0;     // The end, as a queue position.
  uint64_t bytes = 0;    // Between the position and the end.
  uint64_t entries = 0;  // Exact over the first 1024 blocks this process wrote; estimated beyond.
  // When the oldest block not yet sent got its first entry (µs since the epoch); 0 when nothing is
  // behind or it was written before this process started (then: the oldest this process wrote).
  int64_t oldest_unsent_append_unix_us = 0;
};

}  // namespace railyard::storage
