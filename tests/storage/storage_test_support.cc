// SPDX-License-Identifier: Apache-2.0
#include "tests/storage/storage_test_support.h"

#include <stdexcept>

namespace railyard::storage::testing {

Options SmallOptions(size_t memtable_entries) {
  Options options;
  options.memtable_entries = memtable_entries;
  options.segment_bytes = 1 << 20;
  options.bloom_memory_budget = 16 << 20;
  options.bloom_rerank_interval = std::chrono::milliseconds(50);
  options.logger = [](LogLevel, std::string_view) {};
  return options;
}

std::string DocFor(uint64_t id, uint32_t generation) {
  std::string doc = "doc-" + std::to_string(id) + "-gen-" + std::to_string(generation) + "-";
  // Varying lengths, some beyond a block, exercise block boundaries.
  const size_t extra = (id * 7919 + generation * 31) % 300;
  for (size_t i = 0; i < extra; ++i) doc.push_back(static_cast<char>('a' + (id + i) % 26));
  return doc;
}

std::unique_ptr<DocStore> OpenOrDie(const Options& options, const std::string& directory) {
  std::unique_ptr<DocStore> store;
  const Status s = DocStore::Open(options, directory, &store);
  if (!s.ok()) throw std::runtime_error("open " + directory + ": " + s.ToString());
  return store;
}

}  // namespace railyard::storage::testing
