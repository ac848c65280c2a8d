#pragma once

// Internal to storage/: one block of the segment log (format in docs/formats.md).
//
// A block holds whole documents: an entry count, a table of offsets, then each document as its id
// and its bytes.
// The payload is lz4-compressed when that saves at least an eighth, and the header carries an
// xxh3 checksum over itself and the stored payload.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "storage/status.h"

namespace railyard::storage {

inline constexpr uint32_t kBlockMagic = 0x42535952;  // "RYSB"
inline constexpr size_t kBlockHeaderBytes = 24;

// Accumulates documents for the open block. Not thread-safe.
class BlockBuilder {
 public:
  void Add(uint64_t id, std::string_view doc);
  size_t count() const { return offsets_.size(); }
  // Bytes the raw payload will take.
  size_t raw_bytes() const { return 4 * (offsets_.size() + 2) + docs_.size(); }
  bool empty() const { return offsets_.empty(); }
  // Reads a document of the open block. False if `index` is out of range or holds another id.
  bool Get(uint16_t index, uint64_t expected_id, std::string* doc) const;
  // Encodes header + payload. The builder keeps its documents until Reset(), so a block whose
  // write failed can be written again and its documents stay readable meanwhile.
  std::string Encode() const;
  void Reset();

 private:
  std::vector<uint32_t> offsets_;  // Start of each entry in docs_.
  std::string docs_;               // id (8 bytes) + document, per entry.
};

// The header fields of a stored block.
struct BlockHeader {
  bool compressed = false;
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
Status DecodeBlock(const char* data, size_t size, std::string* scratch, std::string_view* raw);

// Extracts entry `index` from a raw payload; Corruption if out of range or the id differs.
Status DocFromRawBlock(std::string_view raw, uint16_t index, uint64_t expected_id,
                       std::string* doc);

}  // namespace railyard::storage
