// SPDX-License-Identifier: Apache-2.0
// kv_bench adapter for LevelDB: default options plus a 10 bits/key Bloom filter; default
// WriteOptions (no sync) and ReadOptions.
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/options.h>

#include <memory>
#include <string>

#include "bench/kv_engine.h"

namespace railyard::bench {
namespace {

class LevelDbEngine final : public KvEngine {
 public:
  ~LevelDbEngine() override {
    std::string ignored;
    Close(&ignored);
  }

  bool Open(const std::string& directory, std::string* error) override {
    filter_policy_.reset(leveldb::NewBloomFilterPolicy(kBloomBitsPerKey));
    leveldb::Options options;
    options.create_if_missing = true;
    options.filter_policy = filter_policy_.get();
    leveldb::DB* db = nullptr;
    const leveldb::Status status = leveldb::DB::Open(options, directory, &db);
    if (!status.ok()) {
      *error = status.ToString();
      return false;
    }
    db_.reset(db);
    compression_ = options.compression == leveldb::kSnappyCompression ? "snappy" : "none";
    write_buffer_bytes_ = options.write_buffer_size;
    return true;
  }

  bool Put(uint64_t key, std::string_view value, std::string* error) override {
    char key_bytes[8];
    EncodeBigEndian(key, key_bytes);
    const leveldb::Status status =
        db_->Put(leveldb::WriteOptions(), leveldb::Slice(key_bytes, sizeof(key_bytes)),
                 leveldb::Slice(value.data(), value.size()));
    if (status.ok()) return true;
    *error = status.ToString();
    return false;
  }

  ReadOutcome Get(uint64_t key, std::string* value, std::string* error) override {
    char key_bytes[8];
    EncodeBigEndian(key, key_bytes);
    const leveldb::Status status =
        db_->Get(leveldb::ReadOptions(), leveldb::Slice(key_bytes, sizeof(key_bytes)), value);
    if (status.ok()) return ReadOutcome::kFound;
    if (status.IsNotFound()) return ReadOutcome::kNotFound;
    *error = status.ToString();
    return ReadOutcome::kFailed;
  }

  // LevelDB's close (deleting the DB) cannot fail.
  bool Close(std::string* /*error*/) override {
    // The database uses the filter policy until it is deleted.
    db_.reset();
    filter_policy_.reset();
    return true;
  }

  std::string Describe() const override {
    return "LevelDB " + std::to_string(leveldb::kMajorVersion) + "." +
           std::to_string(leveldb::kMinorVersion) + ": Bloom filter " +
           std::to_string(kBloomBitsPerKey) + " bits/key, otherwise defaults (write buffer " +
           std::to_string(write_buffer_bytes_ >> 20) + " MiB, compression " + compression_ +
           "), no sync";
  }

 private:
  static constexpr int kBloomBitsPerKey = 10;

  std::unique_ptr<const leveldb::FilterPolicy> filter_policy_;
  std::unique_ptr<leveldb::DB> db_;
  std::string compression_;
  size_t write_buffer_bytes_ = 0;
};

}  // namespace

std::unique_ptr<KvEngine> MakeLevelDbEngine() { return std::make_unique<LevelDbEngine>(); }

}  // namespace railyard::bench
