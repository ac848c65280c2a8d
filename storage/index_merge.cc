// SPDX-License-Identifier: Apache-2.0
#include "storage/index_merge.h"

#include <optional>

#include "storage/bloom.h"

namespace railyard::storage {

Status VectorSource::Next(IndexEntry* entry, bool* done) {
  *done = next_ >= entries_.size();
  if (!*done) *entry = entries_[next_++];
  return Status::Ok();
}

Status MergeIndexes(std::vector<std::unique_ptr<EntrySource>> sources, bool drop_tombstones,
                    uint64_t expected_entries, const Options& options,
                    const std::string& index_path, const std::string& bloom_path,
                    MergeResult* result) {
  *result = MergeResult{};
  IndexFileWriter writer;
  if (Status s = writer.Open(EnvOf(options), index_path); !s.ok()) return s;
  BloomBuilder bloom(ShapeFor(std::max<uint64_t>(1, expected_entries),
                              options.bloom_false_positive_rate,
                              static_cast<uint32_t>(options.bloom_page_bytes)));

  // The head of each source; few sources, so a linear scan for the minimum beats a heap.
  std::vector<std::optional<IndexEntry>> heads(sources.size());
  auto advance = [&](size_t i) -> Status {
    IndexEntry entry;
    bool done = false;
    if (Status s = sources[i]->Next(&entry, &done); !s.ok()) return s;
    heads[i] = done ? std::nullopt : std::optional<IndexEntry>(entry);
    return Status::Ok();
  };
  for (size_t i = 0; i < sources.size(); ++i) {
    if (Status s = advance(i); !s.ok()) return s;
  }
  while (true) {
    std::optional<size_t> newest;
    for (size_t i = 0; i < heads.size(); ++i) {
      if (heads[i] && (!newest || heads[i]->id < heads[*newest]->id)) newest = i;
    }
    if (!newest) break;
    const IndexEntry winner = *heads[*newest];
    for (size_t i = *newest; i < heads.size(); ++i) {
      if (!heads[i] || heads[i]->id != winner.id) continue;
      if (i != *newest && heads[i]->value.kind == EntryKind::kPut) ++result->superseded_docs;
      if (Status s = advance(i); !s.ok()) return s;
    }
    if (drop_tombstones && winner.value.kind == EntryKind::kDelete) continue;
    if (Status s = writer.Add(winner); !s.ok()) return s;
    bloom.Add(winner.id);
  }
  if (Status s = writer.Finish(std::chrono::system_clock::now()); !s.ok()) return s;
  if (Status s = bloom.WriteTo(EnvOf(options), bloom_path); !s.ok()) return s;
  result->entries_written = writer.entries();
  result->bytes_written =
      writer.bytes() + bloom.shape().page_bytes * uint64_t{bloom.shape().page_count};
  return Status::Ok();
}

}  // namespace railyard::storage
