// SPDX-License-Identifier: Apache-2.0
// A segment block read back from disk (or received from an updater): header, checksum, lz4
// payload, entry offsets, tombstone bitmap.
#include <string>
#include <string_view>
#include <vector>

#include "storage/segment_block.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace railyard::storage;
  const char* bytes = reinterpret_cast<const char*>(data);
  BlockHeader header;
  (void)ParseBlockHeader(bytes, size, &header);
  std::string scratch;
  std::string_view raw;
  if (!DecodeBlock(bytes, size, &scratch, &raw, &header).ok()) return 0;
  BlockEntry entry;
  for (uint16_t index = 0; index < 64; ++index) {
    (void)EntryFromRawBlock(raw, header.tombstones, index, index, &entry);
  }
  std::vector<BlockEntry> entries;
  (void)EntriesOfRawBlock(raw, header.tombstones, &entries);
  return 0;
}
