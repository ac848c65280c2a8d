// A segment block read back from disk: header, checksum, lz4 payload, document offsets.
#include <string>
#include <string_view>

#include "storage/segment_block.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace railyard::storage;
  const char* bytes = reinterpret_cast<const char*>(data);
  BlockHeader header;
  (void)ParseBlockHeader(bytes, size, &header);
  std::string scratch;
  std::string_view raw;
  if (!DecodeBlock(bytes, size, &scratch, &raw).ok()) return 0;
  std::string doc;
  for (uint16_t index = 0; index < 64; ++index) {
    (void)DocFromRawBlock(raw, index, index, &doc);
  }
  return 0;
}
