// SPDX-License-Identifier: Apache-2.0
// kv_bench adapter for Railyard's docstore (storage/docstore.h): the key is the document id;
// Options defaults except sync = SyncPolicy::kNone (each write reaches the OS, none is fsync'ed).
#include <memory>
#include <string>

#include "bench/kv_engine.h"
#include "storage/docstore.h"
#include "storage/options.h"
#include "storage/status.h"

namespace railyard::bench {
namespace {

class DocStoreEngine final : public KvEngine {
 public:
  ~DocStoreEngine() override {
    std::string ignored;
    Close(&ignored);
  }

  bool Open(const std::string& directory, std::string* error) override {
    storage::Options options;
    options.sync = storage::SyncPolicy::kNone;
    const storage::Status status = storage::DocStore::Open(options, directory, &store_);
    if (!status.ok()) {
      *error = status.ToString();
      store_.reset();
      return false;
    }
    memtable_entries_ = options.memtable_entries;
    bloom_budget_bytes_ = options.bloom_memory_budget;
    return true;
  }

  bool Put(uint64_t key, std::string_view value, std::string* error) override {
    const storage::Status status = store_->Put(key, value);
    if (status.ok()) return true;
    *error = status.ToString();
    return false;
  }

  ReadOutcome Get(uint64_t key, std::string* value, std::string* error) override {
    const storage::Status status = store_->Get(key, value);
    if (status.ok()) return ReadOutcome::kFound;
    if (status.IsNotFound()) return ReadOutcome::kNotFound;
    *error = status.ToString();
    return ReadOutcome::kFailed;
  }

  bool Close(std::string* error) override {
    if (!store_) return true;
    const storage::Status status = store_->Close();
    store_.reset();
    if (status.ok()) return true;
    *error = status.ToString();
    return false;
  }

  // Shows that the Bloom pager kept to its budget, and how the LSM tree ended up.
  std::string ExtraJsonFields() override {
    const storage::Stats stats = store_->GetStats();
    // Index searches over all reads: 1 per present read is the least; more when filters are not
    // resident or say "maybe", less when reads of absent keys are answered by the filters alone.
    uint64_t index_searches = 0;
    for (const storage::IndexStats& index : stats.indexes) index_searches += index.index_searches;
    return ",\"bloom_budget_bytes\":" + std::to_string(stats.bloom_budget_bytes) +
           ",\"bloom_resident_bytes\":" + std::to_string(stats.bloom_resident_bytes) +
           ",\"indexes\":" + std::to_string(stats.indexes.size()) +
           ",\"index_entry_writes\":" + std::to_string(stats.index_entry_writes) +
           ",\"write_stalls\":" + std::to_string(stats.write_stalls) +
           ",\"index_searches\":" + std::to_string(index_searches) +
           ",\"index_memory_bytes\":" + std::to_string(stats.index_memory_bytes) +
           ",\"memtable_capacity\":" + std::to_string(stats.memtable_capacity) +
           ",\"doc_cache_bytes\":" + std::to_string(stats.cache.bytes) +
           ",\"segment_reads_advised\":" + std::to_string(stats.segment_reads_advised);
  }

  std::string Describe() const override {
    return "docstore: Options defaults (memtable " + std::to_string(memtable_entries_) +
           " entries, Bloom budget " + std::to_string(bloom_budget_bytes_ >> 20) +
           " MiB), sync kNone";
  }

 private:
  std::unique_ptr<storage::DocStore> store_;
  size_t memtable_entries_ = 0;
  size_t bloom_budget_bytes_ = 0;
};

}  // namespace

std::unique_ptr<KvEngine> MakeDocStoreEngine() { return std::make_unique<DocStoreEngine>(); }

}  // namespace railyard::bench
