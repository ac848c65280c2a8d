// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: MANIFEST, the store's table of contents, replaced atomically on every
// change to the set of indexes (format in docs/formats.md).

#include <cstdint>
#include <string>
#include <vector>

#include "storage/segment_log.h"
#include "storage/status.h"

namespace railyard::storage {

struct ManifestIndex {
  uint64_t number = 0;
  uint64_t entries = 0;
};

struct Manifest {
  uint64_t next_file = 1;
  // Write-ahead logs numbered from here on hold writes not yet in an on-disk index.
  uint64_t wal_start = 0;
  // Everything in the segment log before this point is durable.
  LogPosition durable;
  uint64_t index_entry_writes = 0;
  uint64_t appended_docs = 0;          // Documents written to the segment log, ever.
  uint64_t dead_docs = 0;              // Of those, known to be superseded or deleted.
  std::vector<ManifestIndex> indexes;  // Newest first.
};

std::string EncodeManifest(const Manifest& manifest);
Status DecodeManifest(const std::string& text, Manifest* manifest);

}  // namespace railyard::storage
