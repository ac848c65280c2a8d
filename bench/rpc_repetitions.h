// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace railyard::bench {

// One rpc_bench run: a system at one concurrency in one repetition.
struct RunFigures {
  std::string system;
  size_t concurrency = 0;
  int repetition = 0;
  double requests_per_s = 0;
  double p50_us = 0;
  double p99_us = 0;
};

// Figures of several interleaved repetitions, summarised per system and concurrency: the median
// and the spread (min, max) of each figure, and ratios against "raw" and "grpc" taken as the
// median of the per-repetition ratios (each measured side by side, so machine noise that moves
// a whole repetition cancels). A system missing from a repetition leaves that repetition's ratio
// out.
//
// Thread safety: none; one thread.
class RpcRepetitions {
 public:
  void Add(RunFigures figures);
  // One JSON object per line ("summary":"median"), in the order systems and concurrencies were
  // first added.
  void PrintJsonSummary(std::FILE* out) const;
  // The same as an aligned table for people.
  void PrintTable(std::FILE* out) const;

 private:
  struct Summary {
    std::string system;
    size_t concurrency = 0;
    size_t repetitions = 0;
    double rps_median = 0, rps_min = 0, rps_max = 0;
    double p50_median = 0;
    double p99_median = 0, p99_min = 0, p99_max = 0;
    double of_raw = -1;       // Requests/s over raw's; -1: no raw figures.
    double x_grpc = -1;       // Requests/s over gRPC's; -1: no gRPC figures.
    double p99_of_grpc = -1;  // p99 over gRPC's; -1: no gRPC figures.
  };

  std::vector<Summary> Summarize() const;
  // Median over repetitions of `system`'s figure / `other`'s figure at `concurrency`.
  double MedianRatio(const std::string& system, const std::string& other, size_t concurrency,
                     bool p99) const;

  std::vector<RunFigures> runs_;
};

}  // namespace railyard::bench
