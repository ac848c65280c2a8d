// SPDX-License-Identifier: Apache-2.0
// pool_bench: acquire + release of the lowest idle member of rpc::SlotPool, each under a
// std::mutex as rpc::Client does it, for pools of 8, 64 and 512 members.
//
// stdout: one JSON object per result, e.g.
//   {"bench":"pool_bench","name":"BM_AllIdle/64","pool_size":64,"ns_per_op":21.3}
// where one op is one acquire plus one release (wall time). Google Benchmark's own report goes to
// stderr, in the format --benchmark_format asks for (console or json); --benchmark_out=FILE
// --benchmark_out_format=json writes its JSON to a file as usual.
#include <benchmark/benchmark.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/rpc/slot_pool.h"

namespace railyard::bench {
namespace {

using rpc::SlotPool;

constexpr uint32_t kServers = 4;

// Offers (server, slot) pairs the way kServers servers hand out slots 0, 1, 2, ... until the pool
// is full. Returns false if an offer was not admitted.
bool Fill(SlotPool& pool) {
  for (uint32_t i = 0; !pool.full(); ++i) {
    if (pool.Offer(i % kServers, i / kServers).kind != SlotPool::Admission::Kind::kAdded) {
      return false;
    }
  }
  return true;
}

// Holds the `busy` best members busy, then measures acquiring the lowest idle member and releasing
// it again, each under the lock as rpc::Client does.
void AcquireReleaseLowest(benchmark::State& state, size_t busy) {
  const auto size = static_cast<size_t>(state.range(0));
  SlotPool pool(size);
  if (!Fill(pool)) {
    state.SkipWithError("filling the pool failed");
    return;
  }
  for (size_t i = 0; i < busy; ++i) pool.AcquireLowestIdle();
  std::mutex mu;
  for (auto _ : state) {
    std::optional<SlotPool::Handle> handle;
    {
      std::lock_guard lock(mu);
      handle = pool.AcquireLowestIdle();
    }
    if (!handle) {
      state.SkipWithError("no idle member");
      break;
    }
    benchmark::DoNotOptimize(*handle);
    {
      std::lock_guard lock(mu);
      pool.Release(*handle);
    }
  }
  state.SetLabel(std::to_string(busy) + " of " + std::to_string(size) + " busy");
}

void BM_AllIdle(benchmark::State& state) { AcquireReleaseLowest(state, 0); }

// The search skips the busy lower half: whole words of the idle bitmap from 128 members up.
void BM_LowerHalfBusy(benchmark::State& state) {
  AcquireReleaseLowest(state, static_cast<size_t>(state.range(0)) / 2);
}

// Worst case: only the last member is idle, so the search reads every word.
void BM_AllButLastBusy(benchmark::State& state) {
  AcquireReleaseLowest(state, static_cast<size_t>(state.range(0)) - 1);
}

BENCHMARK(BM_AllIdle)->Arg(8)->Arg(64)->Arg(512)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_LowerHalfBusy)->Arg(8)->Arg(64)->Arg(512)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_AllButLastBusy)->Arg(8)->Arg(64)->Arg(512)->Unit(benchmark::kNanosecond);

std::string JsonEscaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// Every benchmark here takes the pool size as its only argument, so it is the argument part of the
// run's name, aggregates included.
int64_t PoolSize(const benchmark::BenchmarkReporter::Run& run) {
  const std::string& args = run.run_name.args;
  int64_t size = 0;
  std::from_chars(args.data(), args.data() + args.size(), size);
  return size;
}

// Passes everything to Google Benchmark's own reporter (writing to stderr) and prints one JSON
// line per result on stdout.
class JsonLinesReporter final : public benchmark::BenchmarkReporter {
 public:
  explicit JsonLinesReporter(std::unique_ptr<benchmark::BenchmarkReporter> display)
      : display_(std::move(display)) {
    display_->SetOutputStream(&std::cerr);
    display_->SetErrorStream(&std::cerr);
  }

  bool ReportContext(const Context& context) override { return display_->ReportContext(context); }

  void ReportRuns(const std::vector<Run>& runs) override {
    display_->ReportRuns(runs);
    for (const Run& run : runs) {
      // Errors are on stderr already; percentage aggregates (coefficient of variation) are not
      // times.
      if (run.error_occurred || run.aggregate_unit != benchmark::kTime) continue;
      const double ns_per_op =
          run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e9;
      std::cout << "{\"bench\":\"pool_bench\",\"name\":\"" << JsonEscaped(run.benchmark_name())
                << "\",\"pool_size\":" << PoolSize(run) << ",\"ns_per_op\":" << std::fixed
                << std::setprecision(2) << ns_per_op << "}\n"
                << std::flush;
    }
  }

  void Finalize() override { display_->Finalize(); }

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> display_;
};

// Google Benchmark's flag parser consumes --benchmark_format, so look for it first. Like Google
// Benchmark, the flag wins over the BENCHMARK_FORMAT environment variable.
bool WantsJsonDisplay(int argc, char** argv) {
  constexpr std::string_view kFlag = "--benchmark_format=";
  std::string format;
  if (const char* env = std::getenv("BENCHMARK_FORMAT")) format = env;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, kFlag.size()) == kFlag) format = arg.substr(kFlag.size());
  }
  return format == "json";
}

}  // namespace
}  // namespace railyard::bench

int main(int argc, char** argv) {
  const bool json_display = railyard::bench::WantsJsonDisplay(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::unique_ptr<benchmark::BenchmarkReporter> display;
  if (json_display) {
    display = std::make_unique<benchmark::JSONReporter>();
  } else {
    display = std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_Tabular);
  }
  railyard::bench::JsonLinesReporter reporter(std::move(display));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
