// SPDX-License-Identifier: Apache-2.0
#include "bench/rpc_repetitions.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace railyard::bench {
namespace {

// The median of `values` (the mean of the middle two for an even count); 0 when empty.
double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// "grpc" stands for itself; Boxcar runs as "railyard" or "boxcar" (the same system).
bool IsGrpc(const std::string& system) { return system == "grpc"; }
bool IsRaw(const std::string& system) { return system == "raw"; }

}  // namespace

void RpcRepetitions::Add(RunFigures figures) { runs_.push_back(std::move(figures)); }

double RpcRepetitions::MedianRatio(const std::string& system, const std::string& other,
                                   size_t concurrency, bool p99) const {
  std::vector<double> ratios;
  for (const RunFigures& mine : runs_) {
    if (mine.system != system || mine.concurrency != concurrency) continue;
    for (const RunFigures& theirs : runs_) {
      if (theirs.system != other || theirs.concurrency != concurrency ||
          theirs.repetition != mine.repetition) {
        continue;
      }
      const double denominator = p99 ? theirs.p99_us : theirs.requests_per_s;
      if (denominator > 0)
        ratios.push_back((p99 ? mine.p99_us : mine.requests_per_s) / denominator);
    }
  }
  return ratios.empty() ? -1 : Median(std::move(ratios));
}

std::vector<RpcRepetitions::Summary> RpcRepetitions::Summarize() const {
  std::vector<std::pair<std::string, size_t>> keys;
  for (const RunFigures& run : runs_) {
    const std::pair<std::string, size_t> key{run.system, run.concurrency};
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  std::stable_sort(keys.begin(), keys.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  const bool have_raw =
      std::any_of(runs_.begin(), runs_.end(), [](const RunFigures& r) { return IsRaw(r.system); });
  const bool have_grpc =
      std::any_of(runs_.begin(), runs_.end(), [](const RunFigures& r) { return IsGrpc(r.system); });
  std::vector<Summary> summaries;
  for (const auto& [system, concurrency] : keys) {
    std::vector<double> rps, p50, p99;
    for (const RunFigures& run : runs_) {
      if (run.system != system || run.concurrency != concurrency) continue;
      rps.push_back(run.requests_per_s);
      p50.push_back(run.p50_us);
      p99.push_back(run.p99_us);
    }
    Summary s;
    s.system = system;
    s.concurrency = concurrency;
    s.repetitions = rps.size();
    s.rps_median = Median(rps);
    s.rps_min = *std::min_element(rps.begin(), rps.end());
    s.rps_max = *std::max_element(rps.begin(), rps.end());
    s.p50_median = Median(p50);
    s.p99_median = Median(p99);
    s.p99_min = *std::min_element(p99.begin(), p99.end());
    s.p99_max = *std::max_element(p99.begin(), p99.end());
    if (have_raw) s.of_raw = MedianRatio(system, "raw", concurrency, false);
    if (have_grpc) {
      s.x_grpc = MedianRatio(system, "grpc", concurrency, false);
      s.p99_of_grpc = MedianRatio(system, "grpc", concurrency, true);
    }
    summaries.push_back(std::move(s));
  }
  return summaries;
}

void RpcRepetitions::PrintJsonSummary(std::FILE* out) const {
  for (const Summary& s : Summarize()) {
    std::fprintf(out,
                 "{\"bench\":\"rpc_bench\",\"summary\":\"median\",\"system\":\"%s\","
                 "\"concurrency\":%zu,\"repetitions\":%zu,\"requests_per_s\":%.1f,"
                 "\"requests_per_s_min\":%.1f,\"requests_per_s_max\":%.1f,\"p50_us\":%.1f,"
                 "\"p99_us\":%.1f,\"p99_us_min\":%.1f,\"p99_us_max\":%.1f",
                 s.system.c_str(), s.concurrency, s.repetitions, s.rps_median, s.rps_min, s.rps_max,
                 s.p50_median, s.p99_median, s.p99_min, s.p99_max);
    if (s.of_raw >= 0) std::fprintf(out, ",\"of_raw\":%.3f", s.of_raw);
    if (s.x_grpc >= 0) std::fprintf(out, ",\"x_grpc\":%.3f", s.x_grpc);
    if (s.p99_of_grpc >= 0) std::fprintf(out, ",\"p99_of_grpc\":%.3f", s.p99_of_grpc);
    std::fprintf(out, "}\n");
  }
  std::fflush(out);
}

void RpcRepetitions::PrintTable(std::FILE* out) const {
  std::fprintf(out, "%-18s %7s %4s %22s %9s %22s %7s %7s %9s\n", "system", "callers", "reps",
               "req/s median [min-max]", "p50 us", "p99 us median [min-max]", "of raw", "x grpc",
               "p99/grpc");
  for (const Summary& s : Summarize()) {
    char rps[64], p99[64], of_raw[16] = "-", x_grpc[16] = "-", p99_grpc[16] = "-";
    std::snprintf(rps, sizeof rps, "%.0f [%.0f-%.0f]", s.rps_median, s.rps_min, s.rps_max);
    std::snprintf(p99, sizeof p99, "%.0f [%.0f-%.0f]", s.p99_median, s.p99_min, s.p99_max);
    if (s.of_raw >= 0) std::snprintf(of_raw, sizeof of_raw, "%.2f", s.of_raw);
    if (s.x_grpc >= 0) std::snprintf(x_grpc, sizeof x_grpc, "%.2f", s.x_grpc);
    if (s.p99_of_grpc >= 0) std::snprintf(p99_grpc, sizeof p99_grpc, "%.2f", s.p99_of_grpc);
    std::fprintf(out, "%-18s %7zu %4zu %22s %9.0f %22s %7s %7s %9s\n", s.system.c_str(),
                 s.concurrency, s.repetitions, rps, s.p50_median, p99, of_raw, x_grpc, p99_grpc);
  }
  std::fflush(out);
}

}  // namespace railyard::bench
