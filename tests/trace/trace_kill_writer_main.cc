// SPDX-License-Identifier: Apache-2.0
// A child process for the crash-safety test: creates a recording and appends snapshots until it
// is killed, printing "READY" once the recording exists and "ROW n" after the n-th append
// returned. Snapshot n is of node NodeName(n % 3) at testing::kKillWriterBaseMs + n.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "core/trace/recording_writer.h"
#include "tests/trace/telemetry_fixture.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s RECORDING COMMIT_EVERY_MS\n", argv[0]);
    return 2;
  }
  using namespace railyard::trace;
  WriterOptions options;
  options.commit_every_rows = 1'000'000;  // Only the interval commits.
  options.commit_every = std::chrono::milliseconds(std::strtol(argv[2], nullptr, 10));
  options.writer = "trace_kill_writer";
  std::unique_ptr<RecordingWriter> writer;
  if (Status s = RecordingWriter::Create(argv[1], options, &writer); !s.ok()) {
    std::fprintf(stderr, "create: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("READY\n");
  std::fflush(stdout);
  for (uint64_t n = 0;; ++n) {
    const std::string node = testing::NodeName(static_cast<int>(n % 3));
    const auto telemetry = testing::MakeTelemetry(
        node, n / 3 + 1, testing::kKillWriterBaseMs + static_cast<int64_t>(n));
    if (Status s = writer->AppendSnapshot(node, telemetry); !s.ok()) {
      std::fprintf(stderr, "append: %s\n", s.ToString().c_str());
      return 1;
    }
    std::printf("ROW %llu\n", static_cast<unsigned long long>(n));
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}
