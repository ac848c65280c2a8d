#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/options.h"
#include "storage/stats.h"
#include "storage/status.h"
#include "storage/write_batch.h"

namespace railyard::storage {

// Docstore v2: documents keyed by 64-bit ids, appended to an immutable segment log and found
// through an LSM-tree index with paged Bloom filters; a write-ahead log makes acknowledged writes
// survive crashes (how far: Options::sync).
//
// Thread safety: every method may be called from any number of threads at once.
class DocStore {
 public:
  // Opens (or creates) the store in `directory`.
  static Status Open(const Options& options, const std::string& directory,
                     std::unique_ptr<DocStore>* store);

  virtual ~DocStore() = default;

  virtual Status Put(uint64_t id, std::string_view doc) = 0;
  virtual Status Delete(uint64_t id) = 0;
  virtual Status Write(const WriteBatch& batch) = 0;
  // NotFound if absent or deleted; Corruption (naming the file) if the document cannot be read
  // back intact.
  virtual Status Get(uint64_t id, std::string* doc) = 0;

  // Writes the in-memory index to disk as a new index (compacting by the seed's rule) and waits
  // for background work to finish.
  virtual Status Flush() = 0;
  // Merges every on-disk index into one.
  virtual Status CompactAll() = 0;
  // Merges the named on-disk indexes, which must be adjacent in age, into one.
  virtual Status CompactIndexes(const std::vector<uint64_t>& index_ids) = 0;

  virtual Stats GetStats() = 0;
  // Flushes nothing; syncs the log, stops background work and closes files. Idempotent; the
  // destructor calls it.
  virtual Status Close() = 0;
};

}  // namespace railyard::storage
