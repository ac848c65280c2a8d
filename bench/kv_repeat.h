// SPDX-License-Identifier: Apache-2.0
#pragma once

// kv_bench --repeat N: the engines run interleaved (A B C, A B C, ...) so that a slow spell of a
// shared machine falls on every engine alike, and each figure is reported as its median with its
// spread (min, max) over the repetitions. Ratios against the reference engine (docstore) are the
// median of the per-repetition ratios, each taken from two runs made minutes apart at most, which
// is steadier than a ratio of medians.
//
// Thread safety: none (one thread at a time).

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace railyard::bench {

struct Spread {
  size_t count = 0;  // Repetitions that had the figure.
  double median = 0;
  double min = 0;
  double max = 0;
};

// Median (mean of the middle two for an even count), min and max. Empty: count 0.
Spread SpreadOf(std::vector<double> values);

// The numeric fields of one flat JSON object such as kv_bench's result line ("engine" and other
// string fields are skipped). False if the text is not such an object.
bool NumericFields(const std::string& line, std::map<std::string, double>* fields);
// The string field `name` of a flat JSON object, or "" if absent.
std::string StringField(const std::string& line, const std::string& name);

class RepeatSummary {
 public:
  // Ratios are figured against `reference`, when it ran.
  explicit RepeatSummary(std::string reference = "docstore");

  // One engine's result line from repetition `repeat` (0-based). False if the line cannot be
  // parsed (it is then ignored).
  bool Add(size_t repeat, const std::string& line);

  // Engines in first-seen order, each with its figures (every numeric field but "n").
  const std::vector<std::string>& engines() const { return engines_; }
  std::map<std::string, Spread> Figures(const std::string& engine) const;
  // For each other engine and each time figure (write_s, read_s): that engine's time / the
  // reference's time in the same repetition (how many times faster the reference was).
  std::map<std::string, Spread> Ratios(const std::string& engine) const;

  // One JSON object per line: a "figure" line per engine and figure, a "ratio" line per other
  // engine and time figure, e.g.
  //   {"bench":"kv_bench","summary":"figure","engine":"docstore","figure":"read_s","repeats":3,
  //    "median":1.2,"min":1.1,"max":1.4}
  //   {"bench":"kv_bench","summary":"ratio","engine":"leveldb","vs":"docstore","figure":"read_s",
  //    "repeats":3,"median":2.6,"min":2.4,"max":2.9}
  std::string JsonLines() const;
  // The same as a table for people.
  std::string Table() const;

 private:
  const std::string reference_;
  std::vector<std::string> engines_;
  // engine -> repetition -> figure -> value.
  std::map<std::string, std::map<size_t, std::map<std::string, double>>> runs_;
};

}  // namespace railyard::bench
