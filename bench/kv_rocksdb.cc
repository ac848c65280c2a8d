// SPDX-License-Identifier: Apache-2.0
// kv_bench adapter for RocksDB: default options, except a block-based table with a 10 bits/key
// Bloom filter; default WriteOptions (no sync) and ReadOptions.
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/version.h>

#include <memory>
#include <string>

#include "bench/kv_engine.h"

namespace railyard::bench {
namespace {

class RocksDbEngine final : public KvEngine {
 public:
  ~RocksDbEngine() override {
    std::string ignored;
    Close(&ignored);
  }

  bool Open(const std::string& directory, std::string* error) override {
    rocksdb::BlockBasedTableOptions table_options;
    table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(kBloomBitsPerKey));
    rocksdb::Options options;
    options.create_if_missing = true;
    options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table_options));
    rocksdb::DB* db = nullptr;
    const rocksdb::Status status = rocksdb::DB::Open(options, directory, &db);
    if (!status.ok()) {
      *error = status.ToString();
      return false;
    }
    db_.reset(db);
    write_buffer_bytes_ = options.write_buffer_size;
    background_jobs_ = options.max_background_jobs;
    return true;
  }

  bool Put(uint64_t key, std::string_view value, std::string* error) override {
    char key_bytes[8];
    EncodeBigEndian(key, key_bytes);
    const rocksdb::Status status =
        db_->Put(rocksdb::WriteOptions(), rocksdb::Slice(key_bytes, sizeof(key_bytes)),
                 rocksdb::Slice(value.data(), value.size()));
    if (status.ok()) return true;
    *error = status.ToString();
    return false;
  }

  ReadOutcome Get(uint64_t key, std::string* value, std::string* error) override {
    char key_bytes[8];
    EncodeBigEndian(key, key_bytes);
    const rocksdb::Status status =
        db_->Get(rocksdb::ReadOptions(), rocksdb::Slice(key_bytes, sizeof(key_bytes)), value);
    if (status.ok()) return ReadOutcome::kFound;
    if (status.IsNotFound()) return ReadOutcome::kNotFound;
    *error = status.ToString();
    return ReadOutcome::kFailed;
  }

  bool Close(std::string* error) override {
    if (!db_) return true;
    const rocksdb::Status status = db_->Close();
    db_.reset();
    if (status.ok()) return true;
    *error = status.ToString();
    return false;
  }

  std::string Describe() const override {
    return "RocksDB " + std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) + "." +
           std::to_string(ROCKSDB_PATCH) + ": block-based table with Bloom filter " +
           std::to_string(kBloomBitsPerKey) + " bits/key, otherwise defaults (write buffer " +
           std::to_string(write_buffer_bytes_ >> 20) + " MiB, " + std::to_string(background_jobs_) +
           " background jobs), no sync";
  }

 private:
  static constexpr int kBloomBitsPerKey = 10;

  std::unique_ptr<rocksdb::DB> db_;
  size_t write_buffer_bytes_ = 0;
  int background_jobs_ = 0;
};

}  // namespace

std::unique_ptr<KvEngine> MakeRocksDbEngine() { return std::make_unique<RocksDbEngine>(); }

}  // namespace railyard::bench
