// SPDX-License-Identifier: Apache-2.0
#pragma once

// What tests/data/compat/docstore-<version>/ holds (docs/formats.md, "Compatibility"): written by
// make_compat_store with that release, opened by every later one (tst_storage_compat).

#include <cstdint>
#include <string>

namespace railyard::storage::testing {

// Ids 1..kCompatFlushed were written, every tenth of them deleted, and flushed to on-disk
// indexes; kCompatFlushed+1..kCompatLast were written after the flush and are only in the WAL.
inline constexpr uint64_t kCompatFlushed = 250;
inline constexpr uint64_t kCompatLast = 260;
inline constexpr size_t kCompatMemtableEntries = 100;

inline bool CompatDeleted(uint64_t id) { return id <= kCompatFlushed && id % 10 == 0; }

inline std::string CompatDoc(uint64_t id) {
  if (id > kCompatFlushed) return "in-the-wal-" + std::to_string(id);
  return "compat-doc-" + std::to_string(id) + std::string(id % 37, 'x');
}

}  // namespace railyard::storage::testing
