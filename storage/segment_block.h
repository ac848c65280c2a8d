// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: one block of the segment log (format in docs/formats.md).
//
// A block holds whole entries: an entry count, a table of offsets, then each entry as its id and
// its document bytes. An entry may be a deletion (a tombstone, with no bytes): such a block sets a
// header flag and ends its payload with a bitmap marking them, so blocks without deletions keep
// the original layout and the docstore queue carries every change a replica must apply.
// The payload is lz4-compressed when that saves at least an eighth, and the header carries an
// xxh3 checksum over itself and the stored payload.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "storage/index_entry.h"
#include "storage/status.h"

namespace railyard::storage {

inline constexpr uint32_t kBlockMagic = 0x42535952;  // "RYSB"
inline constexpr size_t kBlockHeaderBytes = 24;

// Accumulates documents for the open block. Not thread-safe.
class BlockBuilder {
 public:
  // `kind` is kPut or kDelete (a tombstone; `doc` must be empty).
  void Add(uint64_t id, EntryKind kind, std::string_view doc);
  size_t count() const { return offsets_.size(); }
  // Bytes the raw payload will take.
  size_t raw_bytes() const {
    return 4 * (offsets_.size() + 2) + docs_.size() + (tombstones_ ? (offsets_.size() + 7) / 8 : 0);
  }
  bool empty() const { return offsets_.empty(); }
  // Reads an entry of the open block. False if `index` is out of range or holds another id.
  bool Get(uint16_t index, uint64_t expected_id, std::string* doc, EntryKind* kind) const;
  // Encodes header + payload. The builder keeps its documents until Reset(), so a block whose
  // write failed can be written again and its documents stay readable meanwhile.
  std::string Encode() const;
  void Reset();

 private:
  std::vector<uint32_t> offsets_;  // Start of each entry in docs_.
  std::string docs_;               // id (8 bytes) + document, per entry.
  std::vector<bool> deleted_;      // Per entry: a tombstone.
  bool tombstones_ = false;        // Any entry is one.
};

// The header fields of a stored block.
struct BlockHeader {
  bool compressed = false;
  bool tombstones = false;  // The payload ends with a bitmap of deleted entries.
  uint16_t count = 0;
  uint32_t raw_len = 0;
  uint32_t stored_len = 0;
  uint64_t checksum = 0;
  size_t total_bytes() const { return kBlockHeaderBytes + stored_len; }
};

// Parses and sanity-checks a header (magic, lengths); does not verify the checksum.
Status ParseBlockHeader(const char* data, size_t size, BlockHeader* header);

// Verifies a whole stored block (header + payload) and points *raw at its raw payload: into `data`
// itself when stored uncompressed, else into `scratch`, which receives the decompressed bytes.
// `header`, if given, receives the parsed header. With `verify_checksum` false the checksum is
// not computed (the caller verified this block recently: verified_marks.h); the header and the
// lengths are still checked.
Status DecodeBlock(const char* data, size_t size, std::string* scratch, std::string_view* raw,
                   BlockHeader* header = nullptr, bool verify_checksum = true);

// One entry of a decoded block.
struct BlockEntry {
  uint64_t id = 0;
  EntryKind kind = EntryKind::kPut;  // kPut or kDelete.
  std::string_view doc;              // Into the raw payload; empty for a deletion.
};

// Extracts entry `index` from a raw payload; Corruption if out of range, if the id differs, or if
// the layout is damaged. `tombstones` is the header's flag.
Status EntryFromRawBlock(std::string_view raw, bool tombstones, uint16_t index,
                         uint64_t expected_id, BlockEntry* entry);
// Every entry of a raw payload, in order; Corruption if the layout is damaged.
Status EntriesOfRawBlock(std::string_view raw, bool tombstones, std::vector<BlockEntry>* entries);

}  // namespace railyard::storage
