// SPDX-License-Identifier: Apache-2.0
// trace_seek_bench: Seek in a recording of `--nodes` nodes reporting at 1 Hz for `--seconds`
// (default: the requirement's one hour of 20 nodes, 72,000 snapshots of about 1.5 KB). Writes
// the recording with tests/trace's fixture, opens it with a fresh reader, then times `--seeks`
// seeks to random times within its span, checking each answer.
//
// stdout: one JSON line, e.g.
//   {"bench":"trace_seek_bench","snapshots":72000,"nodes":20,"seek_ms_p50":0.21,
//    "seek_ms_max":0.95,"write_s":2.10}
// (one line in reality). write_s is the wall time to write the whole recording; seek_ms_* are
// wall times of RecordingReader::Seek. The requirement is a seek under 100 ms. The file was just
// written, so it is in the page cache: these are warm-cache figures, unless --cold, which before
// each seek evicts the file from the page cache (posix_fadvise) and opens a fresh reader (not
// timed), and adds "cache":"cold" to the line. Diagnostics go to stderr.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <system_error>
#include <vector>

#include "core/trace/recording_reader.h"
#include "tests/trace/telemetry_fixture.h"

namespace railyard::bench {
namespace {

namespace fs = std::filesystem;
using trace::Status;

struct Flags {
  int nodes = 20;
  int seconds = 3600;
  int seeks = 100;
  uint64_t seed = 1;
  std::string dir;
  bool keep = false;
  bool cold = false;
};

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// Asks the kernel to drop the file's cached pages (clean ones: the writer has checkpointed).
bool EvictFromPageCache(const fs::path& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool ok = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
  close(fd);
  return ok;
}

// Number of snapshots Seek(unix_ms) must return.
size_t NodesReportedBy(const trace::testing::ClusterShape& shape, int64_t unix_ms) {
  size_t count = 0;
  for (int node = 0; node < shape.nodes; ++node) count += shape.LatestAt(node, unix_ms) >= 0;
  return count;
}

int Run(const Flags& flags, const fs::path& dir) {
  trace::testing::ClusterShape shape;
  shape.nodes = flags.nodes;
  shape.seconds = flags.seconds;
  const fs::path path = dir / "trace_seek_bench.ryrec";

  const auto write_start = std::chrono::steady_clock::now();
  if (Status s = trace::testing::WriteClusterRecording(path.string(), shape); !s.ok()) {
    std::fprintf(stderr, "trace_seek_bench: write: %s\n", s.ToString().c_str());
    return 1;
  }
  const double write_s = MsSince(write_start) / 1000.0;
  std::error_code ec;
  std::fprintf(stderr, "trace_seek_bench: wrote %lld snapshots, %.1f MB, in %.2f s\n",
               static_cast<long long>(shape.TotalSnapshots()),
               static_cast<double>(fs::file_size(path, ec)) / 1e6, write_s);

  const auto open_start = std::chrono::steady_clock::now();
  std::unique_ptr<trace::RecordingReader> reader;
  if (Status s = trace::RecordingReader::Open(path.string(), &reader); !s.ok()) {
    std::fprintf(stderr, "trace_seek_bench: open: %s\n", s.ToString().c_str());
    return 1;
  }
  const double open_ms = MsSince(open_start);
  trace::TimeSpan span;
  if (Status s = reader->Span(&span); !s.ok()) {
    std::fprintf(stderr, "trace_seek_bench: span: %s\n", s.ToString().c_str());
    return 1;
  }

  std::mt19937_64 rng(flags.seed);
  std::vector<double> seek_ms;
  std::vector<trace::Snapshot> snapshots;
  for (int i = 0; i < flags.seeks; ++i) {
    const int64_t t = span.first_unix_ms +
                      static_cast<int64_t>(rng() % static_cast<uint64_t>(span.last_unix_ms -
                                                                         span.first_unix_ms + 1));
    if (flags.cold) {
      reader.reset();
      if (!EvictFromPageCache(path)) {
        std::fprintf(stderr, "trace_seek_bench: cannot evict %s from the page cache\n",
                     path.c_str());
        return 1;
      }
      if (Status s = trace::RecordingReader::Open(path.string(), &reader); !s.ok()) {
        std::fprintf(stderr, "trace_seek_bench: open: %s\n", s.ToString().c_str());
        return 1;
      }
    }
    const auto start = std::chrono::steady_clock::now();
    const Status s = reader->Seek(t, &snapshots);
    seek_ms.push_back(MsSince(start));
    if (!s.ok() || snapshots.size() != NodesReportedBy(shape, t)) {
      std::fprintf(stderr, "trace_seek_bench: Seek(%lld) gave %zu snapshots (%s)\n",
                   static_cast<long long>(t), snapshots.size(), s.ToString().c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "trace_seek_bench: open %.2f ms, first seek %.3f ms\n", open_ms,
               seek_ms.front());
  std::vector<double> sorted = seek_ms;
  std::sort(sorted.begin(), sorted.end());
  std::printf(
      "{\"bench\":\"trace_seek_bench\",\"snapshots\":%lld,\"nodes\":%d,\"seek_ms_p50\":%.3f,"
      "\"seek_ms_max\":%.3f,\"write_s\":%.2f%s}\n",
      static_cast<long long>(shape.TotalSnapshots()), shape.nodes, sorted[sorted.size() / 2],
      sorted.back(), write_s, flags.cold ? ",\"cache\":\"cold\"" : "");
  std::fflush(stdout);
  return 0;
}

}  // namespace
}  // namespace railyard::bench

int main(int argc, char** argv) {
  namespace bench = railyard::bench;
  namespace fs = std::filesystem;
  bench::Flags flags;
  CLI::App app{"trace_seek_bench: time RecordingReader::Seek in a generated cluster recording"};
  app.add_option("--nodes", flags.nodes, "Nodes in the cluster")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--seconds", flags.seconds, "Seconds recorded (one snapshot per node each)")
      ->check(CLI::Range(1, 7 * 86400))
      ->capture_default_str();
  app.add_option("--seeks", flags.seeks, "Seeks timed")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  app.add_option("--seed", flags.seed, "Seed of the seek times")->capture_default_str();
  app.add_option("--dir", flags.dir,
                 "Existing directory for the recording (default: a new temporary directory, "
                 "removed at the end unless --keep)");
  app.add_flag("--keep", flags.keep, "Keep the recording");
  app.add_flag("--cold", flags.cold,
               "Before each seek, evict the recording from the page cache and reopen the reader");
  CLI11_PARSE(app, argc, argv);

  fs::path dir = flags.dir;
  bool made_dir = false;
  if (dir.empty()) {
    std::string pattern = (fs::temp_directory_path() / "trace_seek_bench.XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("trace_seek_bench: mkdtemp");
      return 1;
    }
    dir = pattern;
    made_dir = true;
  }
  const int rc = bench::Run(flags, dir);
  std::error_code ec;
  if (!flags.keep) {
    for (const char* suffix : {"", "-wal", "-shm"}) {
      fs::remove(dir / (std::string("trace_seek_bench.ryrec") + suffix), ec);
    }
    if (made_dir) fs::remove(dir, ec);
  } else {
    std::fprintf(stderr, "trace_seek_bench: kept %s\n", dir.c_str());
  }
  return rc;
}
