// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace railyard::storage {

// Puts and deletes applied atomically by DocStore::Write: after a crash, all or none of them are
// there.
class WriteBatch {
 public:
  struct Op {
    uint64_t id;
    bool is_delete;
    std::string doc;
  };

  void Put(uint64_t id, std::string_view doc) { ops_.push_back({id, false, std::string(doc)}); }
  void Delete(uint64_t id) { ops_.push_back({id, true, {}}); }
  void Clear() { ops_.clear(); }
  size_t size() const { return ops_.size(); }
  const std::vector<Op>& ops() const { return ops_; }

 private:
  std::vector<Op> ops_;
};

}  // namespace railyard::storage
