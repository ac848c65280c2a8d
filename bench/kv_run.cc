// SPDX-License-Identifier: Apache-2.0
#include "bench/kv_run.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "bench/kv_engine.h"
#include "bench/kv_workload.h"
#include "bench/proc_sample.h"

namespace railyard::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Operations between two looks at the clock: keys and values for a chunk are made (and reads
// checked) outside the timed calls.
constexpr size_t kChunk = 4096;
constexpr Clock::duration kProgressInterval = std::chrono::seconds(5);
constexpr uint64_t kErrorsShown = 10;

// Counts errors; shows the first few on stderr.
class ErrorCounter {
 public:
  explicit ErrorCounter(const std::string& engine) : engine_(engine) {}

  void Add(const std::string& what) {
    ++count_;
    if (count_ <= kErrorsShown) {
      std::fprintf(stderr, "kv_bench: %s: error: %s\n", engine_.c_str(), what.c_str());
    } else if (count_ == kErrorsShown + 1) {
      std::fprintf(stderr, "kv_bench: %s: further errors are counted, not shown\n",
                   engine_.c_str());
    }
  }

  uint64_t count() const { return count_; }

 private:
  const std::string& engine_;
  uint64_t count_ = 0;
};

double Seconds(Clock::duration duration) { return std::chrono::duration<double>(duration).count(); }

// Reports done/total on stderr at most every kProgressInterval.
class Progress {
 public:
  // `extra_json` (`,"name":value` pairs) goes into each progress line on stdout.
  Progress(const std::string& engine, const char* phase, uint64_t total,
           std::string extra_json = {})
      : engine_(engine),
        phase_(phase),
        total_(total),
        extra_json_(std::move(extra_json)),
        started_(Clock::now()),
        last_report_(started_) {}

  void Update(uint64_t done) {
    const Clock::time_point now = Clock::now();
    if (now - last_report_ < kProgressInterval) return;
    last_report_ = now;
    std::fprintf(stderr, "kv_bench: %s: %s %" PRIu64 "/%" PRIu64 " (%.0f%%)\n", engine_.c_str(),
                 phase_, done, total_, 100.0 * static_cast<double>(done) / total_);
    // phase_wall_s: since the phase began, untimed work included (for a rate when stopped).
    std::printf("%.*s\"phase\":\"%s\",\"done\":%" PRIu64 ",\"phase_wall_s\":%.1f%s}\n",
                static_cast<int>(kProgressPrefix.size()), kProgressPrefix.data(), phase_, done,
                Seconds(now - started_), extra_json_.c_str());
    std::fflush(stdout);
  }

 private:
  const std::string& engine_;
  const char* phase_;
  uint64_t total_;
  std::string extra_json_;
  Clock::time_point started_;
  Clock::time_point last_report_;
};

std::string KeyText(uint64_t key) {
  char text[32];
  std::snprintf(text, sizeof(text), "%016" PRIx64, key);
  return text;
}

// All n writes; returns the time spent in the engine's write calls.
Clock::duration WriteAll(KvEngine& engine, const Workload& workload, const std::string& name,
                         ErrorCounter& errors) {
  std::vector<uint64_t> keys(kChunk);
  std::vector<char> values(kChunk * kValueBytes);
  std::string error;
  Progress progress(name, "write", workload.n());
  Clock::duration timed{0};
  for (uint64_t start = 0; start < workload.n(); start += kChunk) {
    const size_t count = static_cast<size_t>(std::min<uint64_t>(kChunk, workload.n() - start));
    for (size_t j = 0; j < count; ++j) {
      keys[j] = workload.WriteKey(start + j);
      FillValue(keys[j], &values[j * kValueBytes]);
    }
    const Clock::time_point begin = Clock::now();
    for (size_t j = 0; j < count; ++j) {
      const std::string_view value(&values[j * kValueBytes], kValueBytes);
      if (!engine.Put(keys[j], value, &error)) errors.Add("put " + KeyText(keys[j]) + ": " + error);
    }
    timed += Clock::now() - begin;
    progress.Update(start + count);
  }
  const Clock::time_point begin = Clock::now();
  if (!engine.FinishWrites(&error)) errors.Add("finishing the writes: " + error);
  timed += Clock::now() - begin;
  return timed;
}

// All n reads, each checked against the value written (or checked absent); returns the time spent
// in the engine's read calls.
Clock::duration ReadAll(KvEngine& engine, const Workload& workload, const std::string& name,
                        ErrorCounter& errors, double write_s, uint64_t* absent_reads) {
  std::vector<uint64_t> keys(kChunk);
  std::vector<std::string> values(kChunk);
  std::vector<ReadOutcome> outcomes(kChunk);
  char expected[kValueBytes];
  std::string error;
  char write_field[64];
  std::snprintf(write_field, sizeof(write_field), ",\"write_s\":%.3f", write_s);
  Progress progress(name, "read", workload.n(), write_field);
  Clock::duration timed{0};
  for (uint64_t start = 0; start < workload.n(); start += kChunk) {
    const size_t count = static_cast<size_t>(std::min<uint64_t>(kChunk, workload.n() - start));
    for (size_t j = 0; j < count; ++j) keys[j] = workload.ReadKey(start + j);
    const Clock::time_point begin = Clock::now();
    for (size_t j = 0; j < count; ++j) {
      outcomes[j] = engine.Get(keys[j], &values[j], &error);
      if (outcomes[j] == ReadOutcome::kFailed) {
        errors.Add("get " + KeyText(keys[j]) + ": " + error);
      }
    }
    timed += Clock::now() - begin;
    for (size_t j = 0; j < count; ++j) {
      if (workload.ReadAbsent(start + j)) {
        ++*absent_reads;
        if (outcomes[j] == ReadOutcome::kFound) {
          errors.Add("get " + KeyText(keys[j]) + ": found a key that was never written");
        }
      } else if (outcomes[j] == ReadOutcome::kNotFound) {
        errors.Add("get " + KeyText(keys[j]) + ": not found");
      } else if (outcomes[j] == ReadOutcome::kFound) {
        FillValue(keys[j], expected);
        if (values[j].size() != kValueBytes ||
            std::memcmp(values[j].data(), expected, kValueBytes) != 0) {
          errors.Add("get " + KeyText(keys[j]) + ": returned " + std::to_string(values[j].size()) +
                     " bytes that differ from the value written");
        }
      }
    }
    progress.Update(start + count);
  }
  const Clock::time_point begin = Clock::now();
  if (!engine.FinishReads(&error)) errors.Add("finishing the reads: " + error);
  timed += Clock::now() - begin;
  return timed;
}

// Total size of the regular files under `directory` (symbolic links are not followed).
uint64_t DirectoryBytes(const std::filesystem::path& directory, std::string* error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  uint64_t total = 0;
  fs::recursive_directory_iterator it(directory, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code entry_ec;
    if (!it->is_regular_file(entry_ec)) continue;
    const uintmax_t size = it->file_size(entry_ec);
    if (entry_ec) {
      *error = it->path().string() + ": " + entry_ec.message();
      return total;
    }
    total += size;
  }
  if (ec) *error = directory.string() + ": " + ec.message();
  return total;
}

uint64_t PeakRssBytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB.
}

// The peaks of this process's anonymous and file-backed resident memory, sampled every 100 ms
// on a thread of its own from construction to Stop.
class RssPartsSampler {
 public:
  RssPartsSampler()
      : thread_([this] {
          while (!stop_.load()) {
            Sample();
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
          }
        }) {}
  ~RssPartsSampler() { Stop(); }

  // Takes a last sample and ends the thread; the peaks hold from then on.
  void Stop() {
    if (!thread_.joinable()) return;
    stop_.store(true);
    thread_.join();
    Sample();
  }
  double peak_anon_mib() const { return peak_anon_mib_.load(); }
  double peak_file_mib() const { return peak_file_mib_.load(); }

 private:
  void Sample() {
    const ProcSample now = ReadProc(getpid());
    if (!now.ok) return;
    if (now.rss_anon_mib > peak_anon_mib_.load()) peak_anon_mib_.store(now.rss_anon_mib);
    if (now.rss_file_mib > peak_file_mib_.load()) peak_file_mib_.store(now.rss_file_mib);
  }

  std::atomic<bool> stop_{false};
  std::atomic<double> peak_anon_mib_{0};
  std::atomic<double> peak_file_mib_{0};
  std::thread thread_;  // Last: it reads the members above.
};

uint64_t MibToBytes(double mib) { return static_cast<uint64_t>(mib * 1024.0 * 1024.0); }

}  // namespace

int RunEngine(const EngineRun& run) {
  const std::string& name = run.engine;
  std::unique_ptr<KvEngine> engine = MakeEngine(name);
  if (!engine) {
    std::fprintf(stderr, "kv_bench: %s: not built into this binary\n", name.c_str());
    return 1;
  }
  std::string error;
  if (!engine->Open(run.directory, &error)) {
    std::fprintf(stderr, "kv_bench: %s: failed to open in %s: %s\n", name.c_str(),
                 run.directory.c_str(), error.c_str());
    return 1;
  }
  std::fprintf(stderr, "kv_bench: %s: %s\n", name.c_str(), engine->Describe().c_str());

  const Workload workload(run.n, run.seed, run.absent_share);
  ErrorCounter errors(name);
  RssPartsSampler rss_parts;
  const double write_s = Seconds(WriteAll(*engine, workload, name, errors));
  std::fprintf(stderr, "kv_bench: %s: %" PRIu64 " writes in %.3f s\n", name.c_str(), run.n,
               write_s);
  uint64_t absent_reads = 0;
  const double read_s = Seconds(ReadAll(*engine, workload, name, errors, write_s, &absent_reads));
  std::fprintf(stderr, "kv_bench: %s: %" PRIu64 " reads in %.3f s\n", name.c_str(), run.n, read_s);

  const ProcSample at_end = ReadProc(getpid());
  rss_parts.Stop();
  char parts[192];
  std::snprintf(parts, sizeof(parts),
                ",\"peak_rss_anon_bytes\":%" PRIu64 ",\"peak_rss_file_bytes\":%" PRIu64
                ",\"end_rss_anon_bytes\":%" PRIu64 ",\"end_rss_file_bytes\":%" PRIu64,
                MibToBytes(rss_parts.peak_anon_mib()), MibToBytes(rss_parts.peak_file_mib()),
                MibToBytes(at_end.rss_anon_mib), MibToBytes(at_end.rss_file_mib));
  std::string extra = parts + engine->ExtraJsonFields();
  if (run.absent_share > 0) {
    char absent[96];
    std::snprintf(absent, sizeof(absent), ",\"absent_share\":%.3f,\"absent_reads\":%" PRIu64,
                  run.absent_share, absent_reads);
    extra = absent + extra;
  }
  if (!engine->Close(&error)) errors.Add("close: " + error);
  engine.reset();
  error.clear();
  const uint64_t disk_bytes = DirectoryBytes(run.directory, &error);
  if (!error.empty()) errors.Add("measuring the directory: " + error);

  std::printf("{\"bench\":\"kv_bench\",\"engine\":\"%s\",\"n\":%" PRIu64
              ",\"write_s\":%.3f,\"read_s\":%.3f,\"disk_bytes\":%" PRIu64
              ",\"peak_rss_bytes\":%" PRIu64 ",\"errors\":%" PRIu64 "%s}\n",
              name.c_str(), run.n, write_s, read_s, disk_bytes, PeakRssBytes(), errors.count(),
              extra.c_str());
  std::fflush(stdout);
  return errors.count() == 0 ? 0 : 1;
}

}  // namespace railyard::bench
