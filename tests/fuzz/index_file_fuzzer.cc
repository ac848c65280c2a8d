// SPDX-License-Identifier: Apache-2.0
// An on-disk index file: footer, fences, page checksums, lookups and a full scan.
#include <memory>

#include "storage/index_file.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace railyard::storage;
  const std::string path = railyard::fuzz::WriteScratchFile(data, size, "index.idx");
  std::shared_ptr<IndexFile> index;
  if (!IndexFile::Open(Env::Default(), path, 1, &index).ok()) return 0;
  bool found = false;
  IndexValue value;
  for (uint64_t id : {uint64_t{0}, uint64_t{1}, uint64_t{7}, uint64_t{1000}, ~uint64_t{0}}) {
    (void)index->Find(id, &found, &value);
  }
  IndexFile::Cursor cursor(*index);
  IndexEntry entry;
  bool done = false;
  for (int i = 0; i < 100000 && !done; ++i) {
    if (!cursor.Next(&entry, &done).ok()) break;
  }
  return 0;
}
