// SPDX-License-Identifier: Apache-2.0
// rpc_bench: unary echo of a 64-byte payload on loopback, Boxcar ("railyard", also spelt
// "boxcar") against gRPC's callback API ("grpc") and against "raw" (length-prefixed frames over
// plain asio: the least a request/response can cost here), under closed-loop load at several
// concurrencies in one run. "raw-uring" is raw's frames and connections driven by io_uring
// (bench/raw_uring_echo.cc), in builds where liburing was found.
//
// stdout: one JSON object per (system, concurrency, repetition), in run order, e.g.
//   {"bench":"rpc_bench","system":"railyard","concurrency":16,"repetition":0,"requests_per_s":...,
//    "p50_us":...,"p99_us":...,"requests":...,"errors":...,"duration_s":...}
// requests counts successful calls that ended inside the measured window (requests_per_s is that
// over duration_s; p50_us and p99_us are their latencies); errors counts failed calls over the
// whole run, warm-up and drain included. Then one summary object per (system, concurrency)
// ("summary":"median": median, min and max over the repetitions, and ratios to raw and gRPC as
// medians of per-repetition ratios; see bench/rpc_repetitions.h), and the same as a table on
// stderr. Repetitions interleave the systems (raw, railyard, grpc, raw, railyard, grpc, ...), so
// a ratio compares runs that saw the same machine. Progress and diagnostics go to stderr.
//
// Exit status: 0 when every run started, drained and had no errors; 1 otherwise. A run with errors
// still prints its line; a run that failed to start, or whose calls did not end in time after the
// measured window, prints none.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/closed_loop.h"
#include "bench/echo_system.h"
#include "bench/latency_summary.h"
#include "bench/rpc_repetitions.h"
#ifdef RAILYARD_RPC_BENCH_HAS_URING
#include "bench/raw_uring_echo.h"
#endif

namespace railyard::bench {
namespace {

constexpr size_t kPayloadBytes = 64;

struct Flags {
  double duration_s = 5;
  std::vector<size_t> concurrencies{1, 16, 64};
  std::vector<std::string> systems{"raw", "railyard", "grpc"};
  int repeat = 1;
  size_t client_threads = 1;
};

// A fifth of the measured time, within [50 ms, 1 s]: enough for connections, caches and the
// allocator to settle.
std::chrono::nanoseconds WarmupFor(std::chrono::nanoseconds duration) {
  return std::clamp<std::chrono::nanoseconds>(duration / 5, std::chrono::milliseconds(50),
                                              std::chrono::seconds(1));
}

std::string MakePayload() {
  std::string payload(kPayloadBytes, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>('a' + i % 26);
  return payload;
}

#ifdef RAILYARD_RPC_BENCH_HAS_URING
constexpr bool kHasRawUring = true;
#else
constexpr bool kHasRawUring = false;
#endif

// Only where kHasRawUring for "raw-uring".
std::unique_ptr<EchoSystem> MakeSystem(const std::string& name, ClosedLoop& loop,
                                       size_t client_threads) {
  if (name == "raw") return MakeRawEcho(loop, MakePayload(), client_threads);
#ifdef RAILYARD_RPC_BENCH_HAS_URING
  if (name == "raw-uring") return MakeRawUringEcho(loop, MakePayload(), client_threads);
#endif
  if (name == "railyard" || name == "boxcar")
    return MakeRailyardEcho(loop, MakePayload(), RailyardSelection::kDefault, client_threads);
  if (name == "boxcar-epoll") {
    return MakeRailyardEcho(loop, MakePayload(), RailyardSelection::kDefault, client_threads,
                            rpc::IoEngine::kEpoll);
  }
  if (name == "boxcar-uring") {
    return MakeRailyardEcho(loop, MakePayload(), RailyardSelection::kDefault, client_threads,
                            rpc::IoEngine::kIoUring);
  }
  if (name == "railyard-fastpath") {
    return MakeRailyardEcho(loop, MakePayload(), RailyardSelection::kFastPath, client_threads);
  }
  return MakeGrpcEcho(loop, MakePayload());
}

RunFigures PrintJsonLine(const std::string& system, size_t concurrency, int repetition,
                         LoopResult& result) {
  const LatencySummary latency = Summarize(result.latencies_ns);
  const double rate =
      result.duration_s > 0 ? static_cast<double>(result.requests) / result.duration_s : 0;
  std::printf(
      "{\"bench\":\"rpc_bench\",\"system\":\"%s\",\"concurrency\":%zu,\"repetition\":%d,"
      "\"requests_per_s\":%.1f,\"p50_us\":%.1f,\"p99_us\":%.1f,\"requests\":%llu,\"errors\":%llu,"
      "\"duration_s\":%.3f}\n",
      system.c_str(), concurrency, repetition, rate, latency.p50_us, latency.p99_us,
      static_cast<unsigned long long>(result.requests),
      static_cast<unsigned long long>(result.errors), result.duration_s);
  std::fflush(stdout);
  return {system, concurrency, repetition, rate, latency.p50_us, latency.p99_us};
}

// Runs one system at one concurrency, prints its line and adds its figures to `repetitions`.
// Returns false if the run failed.
bool RunOne(const std::string& system_name, size_t concurrency, int repetition, const Flags& flags,
            RpcRepetitions& repetitions) {
  LoopOptions options;
  options.concurrency = concurrency;
  options.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(flags.duration_s));
  options.warmup = WarmupFor(options.duration);
  options.drain_timeout = kCallTimeout + std::chrono::seconds(2);
  // Declared before the system so that it outlives every callback the system makes.
  ClosedLoop loop(options);
  std::unique_ptr<EchoSystem> system = MakeSystem(system_name, loop, flags.client_threads);

  std::fprintf(stderr, "rpc_bench: %s, concurrency %zu: starting\n", system_name.c_str(),
               concurrency);
  if (const rpc::Status status = system->Start(concurrency); !status.ok()) {
    std::fprintf(stderr, "rpc_bench: %s failed to start: %s\n", system_name.c_str(),
                 status.ToString().c_str());
    system->Stop();
    return false;
  }
  LoopResult result = loop.Run([&system](size_t caller) { system->Echo(caller); });
  system->Stop();
  std::fprintf(
      stderr,
      "rpc_bench: %s, concurrency %zu: %s; %zu threads in the process (2 of them rpc_bench's)\n",
      system_name.c_str(), concurrency, system->Describe().c_str(), result.process_threads);
  if (!result.drained) {
    std::fprintf(stderr,
                 "rpc_bench: %s, concurrency %zu: calls still in flight %.1f s after "
                 "the measured window; no result\n",
                 system_name.c_str(), concurrency,
                 std::chrono::duration<double>(options.drain_timeout).count());
    return false;
  }
  repetitions.Add(PrintJsonLine(system_name, concurrency, repetition, result));
  if (result.errors > 0) {
    std::fprintf(stderr, "rpc_bench: %s, concurrency %zu: %llu calls failed\n", system_name.c_str(),
                 concurrency, static_cast<unsigned long long>(result.errors));
    return false;
  }
  return result.requests > 0;
}

}  // namespace
}  // namespace railyard::bench

int main(int argc, char** argv) {
  using railyard::bench::Flags;
  Flags flags;
  CLI::App app{
      "rpc_bench: unary echo on loopback, Boxcar (railyard) against gRPC and raw frames, as JSON "
      "lines"};
  app.add_option("--duration-s", flags.duration_s,
                 "Measured seconds per system and concurrency (fractions allowed)")
      ->check(CLI::Range(0.001, 3600.0))
      ->capture_default_str();
  app.add_option("--concurrency,--callers", flags.concurrencies,
                 "Comma-separated numbers of requests kept outstanding")
      ->delimiter(',')
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_option("--systems", flags.systems,
                 "Comma-separated systems to run: raw (length-prefixed frames over plain asio), "
                 "raw-uring (the same driven by io_uring, if built with liburing; skipped with a "
                 "message where the kernel refuses io_uring), railyard (or "
                 "boxcar: the runtime's default I/O engine), boxcar-epoll and boxcar-uring (Boxcar "
                 "on each engine; on io_uring where the kernel allows it, else epoll, as its "
                 "description line says), railyard-fastpath (the stateless lowest-slot policy), "
                 "grpc")
      ->delimiter(',')
      ->check(CLI::IsMember({"raw", "raw-uring", "railyard", "boxcar", "boxcar-epoll",
                             "boxcar-uring", "railyard-fastpath", "grpc"}))
      ->capture_default_str();
  app.add_option("--repeat", flags.repeat,
                 "Repetitions; each runs every system at every concurrency, interleaved")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--client-threads", flags.client_threads,
                 "I/O threads of the raw and Boxcar clients (gRPC manages its own); the server "
                 "runs one per core the process may use")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (!railyard::bench::kHasRawUring &&
      std::find(flags.systems.begin(), flags.systems.end(), "raw-uring") != flags.systems.end()) {
    std::fprintf(stderr,
                 "rpc_bench: raw-uring is not in this build: it needs liburing, which pkg-config "
                 "did not find when the benchmarks were configured (Debian: liburing-dev)\n");
    return 1;
  }
#ifdef RAILYARD_RPC_BENCH_HAS_URING
  // A machine that refuses io_uring has no raw-uring figure, rather than a failed run.
  if (const auto it = std::find(flags.systems.begin(), flags.systems.end(), "raw-uring");
      it != flags.systems.end()) {
    if (const std::string why = railyard::bench::RawUringUnavailable(); !why.empty()) {
      std::fprintf(stderr, "rpc_bench: raw-uring skipped: %s\n", why.c_str());
      flags.systems.erase(it);
      if (flags.systems.empty()) return 0;
    }
  }
#endif

  // The runtime logs through spdlog; keep stdout for the JSON lines.
  spdlog::set_default_logger(spdlog::stderr_color_mt("rpc_bench"));
  spdlog::set_level(spdlog::level::warn);

  bool all_ok = true;
  railyard::bench::RpcRepetitions repetitions;
  for (int repetition = 0; repetition < flags.repeat; ++repetition) {
    for (const size_t concurrency : flags.concurrencies) {
      for (const std::string& system : flags.systems) {
        all_ok =
            railyard::bench::RunOne(system, concurrency, repetition, flags, repetitions) && all_ok;
      }
    }
  }
  repetitions.PrintJsonSummary(stdout);
  repetitions.PrintTable(stderr);
  return all_ok ? 0 : 1;
}
