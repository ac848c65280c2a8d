// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace railyard::bench {

struct EngineRun {
  std::string engine;     // A built engine's name.
  std::string directory;  // Exists and is empty; the engine keeps all its files in it.
  uint64_t n = 0;
  uint64_t seed = 0;
  double absent_share = 0;  // See Workload.
};

// Runs the whole benchmark for one engine in this process: opens it, does the workload's n writes
// then n verified reads, closes it, and prints its JSON line on stdout:
//   {"bench":"kv_bench","engine":...,"n":...,"write_s":...,"read_s":...,"disk_bytes":...,
//    "peak_rss_bytes":...,"errors":...,"peak_rss_anon_bytes":...,"peak_rss_file_bytes":...,
//    "end_rss_anon_bytes":...,"end_rss_file_bytes":...[,the engine's own figures]}
// write_s and read_s are the wall time spent in the engine's calls (generating keys and values and
// checking what was read happen between timed chunks); disk_bytes is the size of the files in the
// directory after Close; peak_rss_bytes is this process's peak RSS (so run one engine per
// process). The RSS's parts, sampled every 100 ms: anonymous memory (the engine's heap and
// private maps) and file-backed pages (files it maps, which are page cache: an engine that reads
// with pread has its file pages in the page cache too, but not in its RSS), at their peaks and
// at the end of the reads. errors counts failed calls, reads that found nothing and reads that
// returned a different value; with an absent share, reads of never-written keys that found
// something count as errors too, and the line adds "absent_share" and "absent_reads". Progress and
// error details go to stderr.
//
// Returns 0 if the line was printed with no errors, 1 otherwise (no line if the engine failed to
// open).
//
// Every few seconds it also prints how far it got, on stdout, for the parent (kv_bench.cc) to
// report an engine stopped at its time limit:
//   {"bench":"kv_bench_progress","phase":"write"|"read","done":...,"phase_wall_s":...}
// (read-phase lines add "write_s", the finished write phase's figure).
int RunEngine(const EngineRun& run);

inline constexpr std::string_view kProgressPrefix = "{\"bench\":\"kv_bench_progress\",";

}  // namespace railyard::bench
