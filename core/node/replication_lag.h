// SPDX-License-Identifier: Apache-2.0
#pragma once

// A replica's lag behind its updater, defined once (docs/figures.md, "Replication lag") for the
// replica's telemetry, its /metrics and everything that reads them: railyardctl and the console.

#include <chrono>
#include <cstdint>

namespace railyard::node {

// A follow connection counts as live unless, on the replica, a fetch has been unanswered or, on
// the updater, no fetch has come for longer than the fetch's own wait plus this. A fetch at the
// head returns after at most its wait, so a live pair never goes this long without a word; a
// SIGSTOPped or cut-off peer does.
inline constexpr std::chrono::milliseconds kFollowSilenceAllowance{2000};

// What the replica knows after its updater's last answer.
struct LagInputs {
  bool connected = false;    // The follow connection is live and heard from (see above).
  uint64_t head = 0;         // The updater's queue end, as of its last answer.
  uint64_t applied = 0;      // What this replica has applied (indexed and readable).
  uint64_t answer_end = 0;   // Where the last answer's blocks end (received, maybe not applied).
  uint64_t answer_docs = 0;  // Entries in the last answer's blocks.
  // When the last answer's first block was appended on the updater (µs since the epoch; 0:
  // unknown).
  int64_t answer_first_append_us = 0;
  uint64_t behind_docs = 0;  // Entries the updater still had past the answer's blocks.
  // When the oldest block past the answer's was appended (µs since the epoch; 0: none or unknown).
  int64_t oldest_unsent_us = 0;
  int64_t now_us = 0;
};

struct ReplicaLag {
  bool known = false;  // False: no live connection to the updater; the figures below are 0.
  uint64_t bytes = 0;
  uint64_t docs = 0;
  double seconds = 0;  // Age of the oldest write not applied here.
};

// Unknown while not connected. Otherwise bytes and documents between `applied` and `head`, and the
// age of the oldest of those writes; all 0 once `applied` reaches `head`. Documents are exact at
// block granularity: an answer's blocks count whole until they are applied.
ReplicaLag ComputeReplicaLag(const LagInputs& in);

}  // namespace railyard::node
