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

std::string LargeDocFor(uint64_t id, uint32_t generation) {
  std::string doc = DocFor(id, generation);
  doc.append(4096 + (id * 131 + generation) % 3000, static_cast<char>('A' + id % 26));
  return doc;
}

std::unique_ptr<DocStore> OpenOrDie(const Options& options, const std::string& directory) {
  std::unique_ptr<DocStore> store;
  const Status s = DocStore::Open(options, directory, &store);
  if (!s.ok()) throw std::runtime_error("open " + directory + ": " + s.ToString());
  return store;
}

int FollowQueue(DocStore& updater, DocStore& replica, size_t max_bytes) {
  int chunks = 0;
  for (int guard = 0; guard < 100000; ++guard) {
    QueueChunk chunk;
    const Status read = updater.ReadQueue(replica.QueueEnd(), max_bytes, &chunk);
    if (!read.ok()) throw std::runtime_error("ReadQueue: " + read.ToString());
    if (chunk.blocks.empty()) return chunks;
    const Status applied = replica.ApplyQueue(chunk.start, chunk.blocks);
    if (!applied.ok()) throw std::runtime_error("ApplyQueue: " + applied.ToString());
    ++chunks;
  }
  throw std::runtime_error("FollowQueue did not finish");
}

Options ReplicaOptions(const Options& base) {
  Options options = base;
  options.replica = true;
  return options;
}

}  // namespace railyard::storage::testing
