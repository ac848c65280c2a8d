// SPDX-License-Identifier: Apache-2.0
// kv_bench: the docstore seed's benchmark. N writes of an 8-byte random key and a 96-byte value in
// random order, then all N keys read back in a different random order, every read checked against
// the value written. Engines side by side in one run: docstore (ours), LevelDB, RocksDB, Kyoto
// Cabinet's B+ tree and SQLite, each doing the same work (same keys, values and orders).
//
// Each engine runs in its own process (this binary again, with a hidden flag), in its own fresh
// subdirectory of --dir, so that its peak RSS is its own.
//
// stdout: one JSON object per engine, in run order, e.g.
//   {"bench":"kv_bench","engine":"leveldb","n":10000000,"write_s":...,"read_s":...,
//    "disk_bytes":...,"peak_rss_bytes":...,"errors":0}
// (fields: see bench/kv_run.h). Progress and diagnostics go to stderr.
//
// --repeat N runs the engines interleaved N times (A B C, A B C, ...) in directories <engine>.<r>;
// each result line then carries "repeat":r (1-based), and after the last repetition come summary
// lines (median, min, max of each figure; ratios to docstore as medians of per-repetition ratios:
// see bench/kv_repeat.h) on stdout and the same as a table on stderr.
//
// --absent-share s makes each read, with probability s, one for a key never written, which must
// be found absent (see bench/kv_workload.h).
//
// Exit status: 0 when every engine ran and had no errors; 1 otherwise (an engine that failed to
// open prints no line; the others still run); CLI11's codes for bad flags.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "bench/kv_child_process.h"
#include "bench/kv_engine.h"
#include "bench/kv_memory_cgroup.h"
#include "bench/kv_repeat.h"
#include "bench/kv_run.h"
#include "bench/kv_shuffle.h"

namespace railyard::bench {
namespace {

namespace fs = std::filesystem;

struct Flags {
  uint64_t n = 10'000'000;
  std::vector<std::string> engines = BuiltEngines();
  std::string dir;
  bool keep = false;
  uint64_t seed = 1;
  double timeout_s = 4 * 3600;
  size_t repeat = 1;
  double absent_share = 0;
  uint64_t memory_limit_mb = 0;  // 0: no limit.
  double time_limit_s = 0;       // 0: none; else an engine still running then is stopped.
  // Hidden: set by the parent for the child process that runs one engine.
  std::string run_engine;
  std::string run_dir;
  std::string run_cgroup_procs;
};

constexpr const char* kFooter = R"(Engines (none syncs per write):
  docstore  storage/docstore.h, Options defaults except sync = kNone; key = the 64-bit id
            (only when built together with railyard_storage)
  leveldb   defaults plus NewBloomFilterPolicy(10); default WriteOptions; key = the id as 8
            bytes big-endian (likewise for rocksdb and kyoto)
  rocksdb   defaults plus a block-based table with NewBloomFilterPolicy(10); default WriteOptions
  kyoto     Kyoto Cabinet TreeDB (B+ tree), default tuning, no OAUTOSYNC
  sqlite    table (id INTEGER PRIMARY KEY, v BLOB), prepared statements; id = the key's 64 bits
            as a signed integer. SQLite syncs at every commit by default, so to honour "no sync
            per write" it runs with PRAGMA synchronous=OFF and commits every 10,000 writes
            (reads are grouped into transactions of 10,000 likewise); otherwise defaults
Each engine runs in its own child process, in a fresh subdirectory <dir>/<engine>. write_s and
read_s count the time spent in the engine's calls; keys and values are made, and reads checked,
between timed chunks of 4096. disk_bytes is measured after the engine is closed.)";

// "docstore is not built" as a flag error, per element of --engines.
std::string CheckEngine(const std::string& name) {
  const std::vector<std::string>& known = KnownEngines();
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    return "unknown engine '" + name + "' (known: docstore, leveldb, rocksdb, kyoto, sqlite)";
  }
  if (!EngineBuilt(name)) {
    return "engine '" + name +
           "' is not built into this kv_bench: the railyard_storage library was not a CMake "
           "target when the build was configured; re-run CMake once storage/ is part of the "
           "build";
  }
  return {};
}

// The line the child printed for `engine`; its last progress line (kv_run.h) goes to
// *last_progress; other output goes to stderr.
std::string ResultLine(const std::string& output, const std::string& engine,
                       std::string* last_progress) {
  const std::string prefix = "{\"bench\":\"kv_bench\",\"engine\":\"" + engine + "\",";
  std::string result;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    const std::string line = output.substr(start, end - start);
    if (result.empty() && line.starts_with(prefix) && line.ends_with("}")) {
      result = line;
    } else if (line.starts_with(kProgressPrefix)) {
      *last_progress = line;
    } else if (!line.empty()) {
      std::fprintf(stderr, "kv_bench: %s: unexpected output: %s\n", engine.c_str(), line.c_str());
    }
    start = end + 1;
  }
  return result;
}

// What the memory limit and the time limit did to one engine's child.
struct LimitReport {
  std::string json_fields;  // Appended to its result line.
  bool stopped_at_time_limit = false;
};

// Says on stderr (and, for an engine stopped at --time-limit-s, as a "kv_bench_unfinished" JSON
// line on stdout) what the limits did: the cgroup's peak and OOM kills, how far it got.
LimitReport ReportLimits(const std::string& engine, const Flags& flags, const MemoryCgroup& cgroup,
                         const ChildResult& child, const std::string& progress, bool time_limited) {
  LimitReport report;
  std::string limit_fields;
  if (flags.memory_limit_mb > 0) {
    const uint64_t peak = cgroup.PeakBytes();
    const uint64_t oom_kills = cgroup.OomKills();
    limit_fields = ",\"memory_limit_mb\":" + std::to_string(flags.memory_limit_mb) +
                   ",\"cgroup_peak_bytes\":" + std::to_string(peak);
    std::fprintf(stderr, "kv_bench: %s: memory limit %" PRIu64 " MB: peak %.1f MB charged\n",
                 engine.c_str(), flags.memory_limit_mb, static_cast<double>(peak) / (1 << 20));
    const bool killed = child.started && !child.exited && child.signal == SIGKILL;
    if (oom_kills > 0 || (killed && !child.timed_out)) {
      std::fprintf(stderr,
                   "kv_bench: %s: killed by its memory limit of %" PRIu64 " MB (%" PRIu64
                   " OOM kills in its cgroup)\n",
                   engine.c_str(), flags.memory_limit_mb, oom_kills);
    }
  }
  report.json_fields = limit_fields;
  if (time_limited && child.timed_out) {
    report.stopped_at_time_limit = true;
    // The child's last progress line: {"bench":"kv_bench_progress",...,"phase":..,"done":..}.
    const std::string how_far =
        progress.size() > kProgressPrefix.size()
            ? progress.substr(kProgressPrefix.size(), progress.size() - kProgressPrefix.size() - 1)
            : "\"phase\":\"open\",\"done\":0";
    std::fprintf(stderr, "kv_bench: %s: did not finish in %.0f s (at %s)\n", engine.c_str(),
                 flags.time_limit_s, how_far.c_str());
    std::printf("{\"bench\":\"kv_bench_unfinished\",\"engine\":\"%s\",\"n\":%" PRIu64
                ",\"time_limit_s\":%.0f,%s%s}\n",
                engine.c_str(), flags.n, flags.time_limit_s, how_far.c_str(), limit_fields.c_str());
    std::fflush(stdout);
  }
  return report;
}

// Runs one engine in a child process in `directory` and prints its line (with "repeat" when
// repeat > 0), also kept in *result. True if it ran cleanly.
bool RunEngineProcess(const std::string& engine, const fs::path& directory, const Flags& flags,
                      size_t repeat = 0, std::string* result = nullptr) {
  std::error_code ec;
  if (fs::exists(directory, ec) || ec) {
    std::fprintf(stderr,
                 "kv_bench: %s: %s already exists; each engine needs a fresh directory (remove "
                 "it or choose another --dir)\n",
                 engine.c_str(), directory.c_str());
    return false;
  }
  if (!fs::create_directory(directory, ec)) {
    std::fprintf(stderr, "kv_bench: %s: cannot create %s: %s\n", engine.c_str(), directory.c_str(),
                 ec.message().c_str());
    return false;
  }
  std::fprintf(stderr, "kv_bench: %s: starting in %s\n", engine.c_str(), directory.c_str());
  const bool time_limited = flags.time_limit_s > 0 && flags.time_limit_s < flags.timeout_s;
  const auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::duration<double>(time_limited ? flags.time_limit_s : flags.timeout_s));
  std::vector<std::string> args{"--run-engine", engine,
                                "--run-dir",    directory.string(),
                                "--n",          std::to_string(flags.n),
                                "--seed",       std::to_string(flags.seed)};
  if (flags.absent_share > 0) {
    args.insert(args.end(), {"--absent-share", std::to_string(flags.absent_share)});
  }
  MemoryCgroup cgroup;
  if (flags.memory_limit_mb > 0) {
    std::string error;
    const std::string name = "kv_bench-" + std::to_string(getpid()) + "-" + engine;
    if (!cgroup.Create(name, flags.memory_limit_mb << 20, &error)) {
      std::fprintf(stderr, "kv_bench: %s: %s\n", engine.c_str(), error.c_str());
      return false;
    }
    args.insert(args.end(), {"--run-cgroup-procs", cgroup.procs_path()});
  }
  const ChildResult child = RunSelf(args, timeout);
  std::string progress;
  std::string line = ResultLine(child.output, engine, &progress);
  const LimitReport limit = ReportLimits(engine, flags, cgroup, child, progress, time_limited);
  if (!line.empty() && repeat > 0) {
    // After the engine's name, so the line still starts as every result line does.
    line.insert(line.find("\"n\":"), "\"repeat\":" + std::to_string(repeat) + ",");
  }
  if (!line.empty()) {
    line.insert(line.size() - 1, limit.json_fields);
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }
  if (result) *result = line;
  bool ok = true;
  if (limit.stopped_at_time_limit) {
    // Reported above as not finished: what --time-limit-s asks for, not an error.
  } else if (!child.ok()) {
    std::fprintf(stderr, "kv_bench: %s: its process %s%s\n", engine.c_str(),
                 child.Describe().c_str(),
                 child.timed_out ? " (see --timeout-s)"
                 : line.empty()  ? ""
                                 : " (errors above)");
    ok = false;
  } else if (line.empty()) {
    std::fprintf(stderr, "kv_bench: %s: its process printed no result line\n", engine.c_str());
    ok = false;
  }
  if (!flags.keep) {
    fs::remove_all(directory, ec);
    if (ec) {
      std::fprintf(stderr, "kv_bench: %s: cannot remove %s: %s\n", engine.c_str(),
                   directory.c_str(), ec.message().c_str());
    }
  }
  // Write back this engine's dirty pages now rather than during the next engine's run.
  sync();
  return ok;
}

// Creates a fresh temporary directory under the system's (TMPDIR, else /tmp).
bool MakeTempDirectory(fs::path* directory) {
  std::error_code ec;
  std::string pattern = (fs::temp_directory_path(ec) / "kv_bench.XXXXXX").string();
  if (ec) pattern = "/tmp/kv_bench.XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror(("kv_bench: mkdtemp " + pattern).c_str());
    return false;
  }
  *directory = pattern;
  return true;
}

int RunAll(const Flags& flags) {
  fs::path base;
  bool made_temp = false;
  bool made_base = false;
  if (flags.dir.empty()) {
    if (!MakeTempDirectory(&base)) return 1;
    made_temp = true;
  } else {
    base = flags.dir;
    std::error_code ec;
    made_base = fs::create_directories(base, ec);
    if (ec) {
      std::fprintf(stderr, "kv_bench: cannot create --dir %s: %s\n", base.c_str(),
                   ec.message().c_str());
      return 1;
    }
  }
  std::string engine_list;
  for (const std::string& engine : flags.engines) {
    engine_list += (engine_list.empty() ? "" : ",") + engine;
  }
  std::fprintf(
      stderr, "kv_bench: n=%" PRIu64 " seed=%" PRIu64 " engines=%s dir=%s repeat=%zu absent=%.3f\n",
      flags.n, flags.seed, engine_list.c_str(), base.c_str(), flags.repeat, flags.absent_share);
  if (flags.memory_limit_mb > 0) {
    // Fail at once, clearly, rather than once per engine.
    MemoryCgroup probe;
    std::string error;
    if (!probe.Create("kv_bench-" + std::to_string(getpid()) + "-probe",
                      flags.memory_limit_mb << 20, &error)) {
      std::fprintf(stderr, "kv_bench: --memory-limit-mb: %s\n", error.c_str());
      return kNoMemoryCgroupExit;
    }
  }
  if (!EngineBuilt("docstore")) {
    std::fprintf(stderr, "kv_bench: note: built without docstore (no railyard_storage target)\n");
  }

  bool all_ok = true;
  if (flags.repeat == 1) {
    for (const std::string& engine : flags.engines) {
      all_ok = RunEngineProcess(engine, base / engine, flags) && all_ok;
    }
  } else {
    RepeatSummary summary;
    for (size_t r = 1; r <= flags.repeat; ++r) {
      for (const std::string& engine : flags.engines) {
        std::string line;
        const fs::path directory = base / (engine + "." + std::to_string(r));
        all_ok = RunEngineProcess(engine, directory, flags, r, &line) && all_ok;
        if (!line.empty()) summary.Add(r - 1, line);
      }
    }
    std::printf("%s", summary.JsonLines().c_str());
    std::fflush(stdout);
    std::fprintf(stderr, "kv_bench: %zu interleaved repetitions, %s", flags.repeat,
                 summary.Table().c_str());
  }

  std::error_code ec;
  if (flags.keep) {
    std::fprintf(stderr, "kv_bench: kept the engines' directories under %s\n", base.c_str());
  } else if (made_temp) {
    fs::remove_all(base, ec);
  } else if (made_base) {
    fs::remove(base, ec);  // Only if empty: never anything kv_bench did not create.
  }
  if (ec) {
    std::fprintf(stderr, "kv_bench: cannot remove %s: %s\n", base.c_str(), ec.message().c_str());
  }
  return all_ok ? 0 : 1;
}

}  // namespace
}  // namespace railyard::bench

int main(int argc, char** argv) {
  namespace bench = railyard::bench;
  bench::Flags flags;
  CLI::App app{
      "kv_bench: the docstore seed's benchmark, as JSON lines: N writes of an 8-byte random key "
      "and a 96-byte value in random order, then every key read back (and checked) in a "
      "different random order, for several engines side by side"};
  app.footer(bench::kFooter);
  app.add_option("--n", flags.n, "Number of keys written, then read")
      ->check(CLI::Range(uint64_t{1}, bench::Shuffle::kMaxSize))
      ->capture_default_str();
  app.add_option("--engines", flags.engines,
                 "Comma-separated engines, run in this order: docstore, leveldb, rocksdb, kyoto, "
                 "sqlite (default: all built into this binary)")
      ->delimiter(',')
      ->check(CLI::Validator([](std::string& name) { return bench::CheckEngine(name); }, "ENGINE",
                             "engine"))
      ->capture_default_str();
  app.add_option("--dir", flags.dir,
                 "Directory for the engines' subdirectories, created if missing (default: a new "
                 "temporary directory under /tmp, removed at the end unless --keep)");
  app.add_flag("--keep", flags.keep, "Keep each engine's files (<dir>/<engine>) after its run");
  app.add_option("--seed", flags.seed, "Seed of the keys and of both orders")
      ->capture_default_str();
  app.add_option("--timeout-s", flags.timeout_s, "Seconds each engine may take before it is killed")
      ->check(CLI::Range(1.0, 30.0 * 86400))
      ->capture_default_str();
  app.add_option("--repeat", flags.repeat,
                 "Run the engines interleaved this many times and add the median and spread of "
                 "each figure, and of each ratio to docstore")
      ->check(CLI::Range(size_t{1}, size_t{1000}))
      ->capture_default_str();
  app.add_option("--absent-share", flags.absent_share,
                 "Share of the reads that ask for a key never written (each checked absent)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--memory-limit-mb", flags.memory_limit_mb,
                 "Run each engine in a memory cgroup limited to this many MB (page cache "
                 "included), as the seed's 512 MB table; exit status 3 if no cgroup can be made")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  app.add_option("--time-limit-s", flags.time_limit_s,
                 "Stop an engine still running after this many seconds and report it as not "
                 "finished, with how far it got (a kv_bench_unfinished line), not as an error")
      ->check(CLI::Range(1.0, 30.0 * 86400));
  app.add_option("--run-engine", flags.run_engine)->group("");
  app.add_option("--run-cgroup-procs", flags.run_cgroup_procs)->group("");
  app.add_option("--run-dir", flags.run_dir)->group("");
  CLI11_PARSE(app, argc, argv);

  if (!flags.run_engine.empty()) {
    if (const std::string problem = bench::CheckEngine(flags.run_engine); !problem.empty()) {
      return app.exit(CLI::ValidationError("--run-engine", problem));
    }
    if (flags.run_dir.empty()) {
      return app.exit(CLI::RequiredError("--run-dir"));
    }
    // Ends with kv_bench: a child left running would hold its cgroup and its directory.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (!flags.run_cgroup_procs.empty()) {
      std::string error;
      if (!bench::JoinMemoryCgroup(flags.run_cgroup_procs, &error)) {
        std::fprintf(stderr, "kv_bench: %s: %s\n", flags.run_engine.c_str(), error.c_str());
        return 1;
      }
    }
    return bench::RunEngine(
        {flags.run_engine, flags.run_dir, flags.n, flags.seed, flags.absent_share});
  }
  if (flags.engines.empty()) {
    return app.exit(CLI::ValidationError("--engines", "no engine to run"));
  }
  for (size_t i = 0; i < flags.engines.size(); ++i) {
    if (std::count(flags.engines.begin(), flags.engines.begin() + i, flags.engines[i]) > 0) {
      return app.exit(
          CLI::ValidationError("--engines", "'" + flags.engines[i] + "' is listed twice"));
    }
  }
  return bench::RunAll(flags);
}
