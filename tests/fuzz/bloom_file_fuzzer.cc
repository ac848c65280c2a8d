// SPDX-License-Identifier: Apache-2.0
// A Bloom filter file: footer, layout, page checksums, and a probe of every page read.
//
// The footer carries an xxh3 checksum that random bytes never match, so before writing the input
// the target seals its last 32 bytes with a fresh checksum: the fuzzer then reaches the layout
// checks and the page reads behind them, as a hostile writer (not a flipped bit) could.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "storage/bloom.h"
#include "storage/coding.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace railyard::storage;
  constexpr size_t kFooterBytes = 32;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.size() >= kFooterBytes) {
    char* footer = bytes.data() + bytes.size() - kFooterBytes;
    std::string sum;
    PutFixed64(sum, Checksum64(footer, kFooterBytes - 8));
    std::memcpy(footer + kFooterBytes - 8, sum.data(), sum.size());
  }
  const std::string path = railyard::fuzz::WriteScratchFile(
      reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "filter.bloom");
  std::shared_ptr<BloomFile> filter;
  if (!BloomFile::Open(Env::Default(), path, &filter).ok()) return 0;
  const BloomShape& shape = filter->shape();
  std::vector<uint8_t> page;
  for (uint64_t id : {uint64_t{0}, uint64_t{1}, uint64_t{7}, uint64_t{1000}, ~uint64_t{0}}) {
    const uint32_t p = BloomPageOf(shape, id);
    if (filter->ReadPage(p, &page).ok()) (void)PageMayContain(shape, page.data(), id);
  }
  (void)filter->ReadPage(shape.page_count, &page);  // One past the end: refused, not read.
  return 0;
}
