// SPDX-License-Identifier: Apache-2.0
// kv_bench adapter for Kyoto Cabinet's TreeDB (its file B+ tree) with default tuning, opened
// without OAUTOSYNC or OAUTOTRAN: no sync per write.
#include <kchashdb.h>

#include <memory>
#include <string>

#include "bench/kv_engine.h"

namespace railyard::bench {
namespace {

class KyotoEngine final : public KvEngine {
 public:
  ~KyotoEngine() override {
    std::string ignored;
    Close(&ignored);
  }

  bool Open(const std::string& directory, std::string* error) override {
    path_ = directory + "/kv.kct";
    if (!db_.open(path_, kyotocabinet::TreeDB::OWRITER | kyotocabinet::TreeDB::OCREATE)) {
      *error = LastError();
      return false;
    }
    open_ = true;
    return true;
  }

  bool Put(uint64_t key, std::string_view value, std::string* error) override {
    char key_bytes[8];
    EncodeBigEndian(key, key_bytes);
    if (db_.set(key_bytes, sizeof(key_bytes), value.data(), value.size())) return true;
    *error = LastError();
    return false;
  }

  ReadOutcome Get(uint64_t key, std::string* value, std::string* error) override {
    char key_bytes[8];
    EncodeBigEndian(key, key_bytes);
    // Values are at most this long here; a longer one is reported as a failure below.
    char buffer[256];
    const int32_t size = db_.get(key_bytes, sizeof(key_bytes), buffer, sizeof(buffer));
    if (size < 0) {
      if (db_.error().code() == kyotocabinet::BasicDB::Error::NOREC) return ReadOutcome::kNotFound;
      *error = LastError();
      return ReadOutcome::kFailed;
    }
    if (static_cast<size_t>(size) > sizeof(buffer)) {
      *error = "value of " + std::to_string(size) + " bytes, longer than any value written";
      return ReadOutcome::kFailed;
    }
    value->assign(buffer, static_cast<size_t>(size));
    return ReadOutcome::kFound;
  }

  bool Close(std::string* error) override {
    if (!open_) return true;
    open_ = false;
    if (db_.close()) return true;
    *error = LastError();
    return false;
  }

  std::string Describe() const override {
    return std::string("Kyoto Cabinet ") + kyotocabinet::VERSION + ": TreeDB (B+ tree) " + path_ +
           ", default tuning, no sync";
  }

 private:
  std::string LastError() const {
    const kyotocabinet::BasicDB::Error error = db_.error();
    return std::string(error.name()) + ": " + error.message();
  }

  kyotocabinet::TreeDB db_;
  std::string path_;
  bool open_ = false;
};

}  // namespace

std::unique_ptr<KvEngine> MakeKyotoEngine() { return std::make_unique<KyotoEngine>(); }

}  // namespace railyard::bench
