// SPDX-License-Identifier: Apache-2.0
// Recovery reading a write-ahead log of any shape: intact, torn, damaged in the middle.
#include <vector>

#include "storage/wal.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace railyard::storage;
  const std::string path = railyard::fuzz::WriteScratchFile(data, size, "wal-000001.log");
  Options options;
  options.logger = [](LogLevel, std::string_view) {};
  uint64_t ops = 0;
  ReplayHandlers handlers;
  handlers.on_record = [&](std::vector<ReplayedOp>& replayed) {
    ops += replayed.size();
    return Status::Ok();
  };
  handlers.on_damaged_id = [&](uint64_t) { ++ops; };
  ReplayReport report;
  (void)ReplayWal(path, /*last=*/size % 2 == 0, options, handlers, &report);
  return 0;
}
