// SPDX-License-Identifier: Apache-2.0
// A recording file from anywhere: not SQLite, SQLite but not a recording, or a recording with
// damaged rows. Every read path must answer with a Status, never crash.
#include <memory>

#include "core/trace/recording_reader.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace railyard::trace;
  const std::string path = railyard::fuzz::WriteScratchFile(data, size, "recording.ryrec");
  std::unique_ptr<RecordingReader> reader;
  if (!RecordingReader::Open(path, &reader).ok()) return 0;
  std::vector<std::string> nodes;
  (void)reader->Nodes(&nodes);
  std::vector<Event> events;
  (void)reader->Events(&events);
  std::vector<Snapshot> at;
  (void)reader->Seek(1, &at);
  int rows = 0;
  for (auto cursor = reader->NewSnapshotCursor(0); cursor->Valid() && rows < 10000; cursor->Next())
    ++rows;
  for (auto cursor = reader->NewWorkloadCursor(0); cursor->Valid() && rows < 20000; cursor->Next())
    ++rows;
  return 0;
}
