// SPDX-License-Identifier: Apache-2.0
#include "bench/kv_repeat.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace railyard::bench {
namespace {

constexpr const char* kTimeFigures[] = {"write_s", "read_s"};

void SkipSpace(const std::string& text, size_t* at) {
  while (*at < text.size() && std::isspace(static_cast<unsigned char>(text[*at]))) ++*at;
}

// A JSON string starting at text[*at] == '"'; kv_bench's lines hold no escapes, but a backslash
// is stepped over all the same.
bool ReadString(const std::string& text, size_t* at, std::string* out) {
  if (*at >= text.size() || text[*at] != '"') return false;
  out->clear();
  for (size_t i = *at + 1; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      out->push_back(text[++i]);
    } else if (text[i] == '"') {
      *at = i + 1;
      return true;
    } else {
      out->push_back(text[i]);
    }
  }
  return false;
}

// Visits each "name": value of a flat object; value_is_string says which kind it was.
template <typename Visit>
bool ForEachField(const std::string& text, Visit visit) {
  size_t at = 0;
  SkipSpace(text, &at);
  if (at >= text.size() || text[at] != '{') return false;
  ++at;
  SkipSpace(text, &at);
  if (at < text.size() && text[at] == '}') return true;
  while (at < text.size()) {
    std::string name;
    SkipSpace(text, &at);
    if (!ReadString(text, &at, &name)) return false;
    SkipSpace(text, &at);
    if (at >= text.size() || text[at] != ':') return false;
    ++at;
    SkipSpace(text, &at);
    if (at < text.size() && text[at] == '"') {
      std::string value;
      if (!ReadString(text, &at, &value)) return false;
      visit(name, &value, 0.0);
    } else {
      const char* begin = text.c_str() + at;
      char* end = nullptr;
      const double value = std::strtod(begin, &end);
      if (end == begin) return false;
      at += static_cast<size_t>(end - begin);
      visit(name, nullptr, value);
    }
    SkipSpace(text, &at);
    if (at < text.size() && text[at] == ',') {
      ++at;
      continue;
    }
    if (at < text.size() && text[at] == '}') return true;
    return false;
  }
  return false;
}

// Whole numbers (byte counts, counters) in full; others to 6 significant digits.
std::string Number(double value) {
  char text[64];
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    std::snprintf(text, sizeof(text), "%.0f", value);
  } else {
    std::snprintf(text, sizeof(text), "%.6g", value);
  }
  return text;
}

std::string SpreadJson(const Spread& spread) {
  return "\"repeats\":" + std::to_string(spread.count) + ",\"median\":" + Number(spread.median) +
         ",\"min\":" + Number(spread.min) + ",\"max\":" + Number(spread.max);
}

// "1.234 [1.100, 1.400]", values divided by `scale`, each followed by `unit`.
std::string Cell(const Spread& spread, int decimals, double scale, const char* unit = "") {
  if (spread.count == 0) return "-";
  char text[128];
  std::snprintf(text, sizeof(text), "%.*f%s [%.*f%s, %.*f%s]", decimals, spread.median / scale,
                unit, decimals, spread.min / scale, unit, decimals, spread.max / scale, unit);
  return text;
}

}  // namespace

Spread SpreadOf(std::vector<double> values) {
  Spread spread;
  spread.count = values.size();
  if (values.empty()) return spread;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  spread.median = values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  spread.min = values.front();
  spread.max = values.back();
  return spread;
}

bool NumericFields(const std::string& line, std::map<std::string, double>* fields) {
  fields->clear();
  return ForEachField(line, [&](const std::string& name, const std::string* text, double value) {
    if (text == nullptr) (*fields)[name] = value;
  });
}

std::string StringField(const std::string& line, const std::string& name) {
  std::string found;
  ForEachField(line, [&](const std::string& field, const std::string* text, double) {
    if (text != nullptr && field == name && found.empty()) found = *text;
  });
  return found;
}

RepeatSummary::RepeatSummary(std::string reference) : reference_(std::move(reference)) {}

bool RepeatSummary::Add(size_t repeat, const std::string& line) {
  std::map<std::string, double> fields;
  const std::string engine = StringField(line, "engine");
  if (engine.empty() || !NumericFields(line, &fields)) return false;
  fields.erase("n");
  fields.erase("repeat");
  if (std::find(engines_.begin(), engines_.end(), engine) == engines_.end()) {
    engines_.push_back(engine);
  }
  runs_[engine][repeat] = std::move(fields);
  return true;
}

std::map<std::string, Spread> RepeatSummary::Figures(const std::string& engine) const {
  std::map<std::string, std::vector<double>> values;
  const auto runs = runs_.find(engine);
  if (runs != runs_.end()) {
    for (const auto& [repeat, fields] : runs->second) {
      for (const auto& [name, value] : fields) values[name].push_back(value);
    }
  }
  std::map<std::string, Spread> out;
  for (auto& [name, list] : values) out[name] = SpreadOf(std::move(list));
  return out;
}

std::map<std::string, Spread> RepeatSummary::Ratios(const std::string& engine) const {
  std::map<std::string, Spread> out;
  const auto peer = runs_.find(engine);
  const auto reference = runs_.find(reference_);
  if (engine == reference_ || peer == runs_.end() || reference == runs_.end()) return out;
  for (const char* figure : kTimeFigures) {
    std::vector<double> ratios;
    for (const auto& [repeat, fields] : peer->second) {
      const auto ours = reference->second.find(repeat);
      if (ours == reference->second.end()) continue;
      const auto theirs_value = fields.find(figure);
      const auto ours_value = ours->second.find(figure);
      if (theirs_value == fields.end() || ours_value == ours->second.end()) continue;
      if (ours_value->second <= 0) continue;
      ratios.push_back(theirs_value->second / ours_value->second);
    }
    if (!ratios.empty()) out[figure] = SpreadOf(std::move(ratios));
  }
  return out;
}

std::string RepeatSummary::JsonLines() const {
  std::string out;
  for (const std::string& engine : engines_) {
    for (const auto& [figure, spread] : Figures(engine)) {
      out += "{\"bench\":\"kv_bench\",\"summary\":\"figure\",\"engine\":\"" + engine +
             "\",\"figure\":\"" + figure + "\"," + SpreadJson(spread) + "}\n";
    }
  }
  for (const std::string& engine : engines_) {
    for (const auto& [figure, spread] : Ratios(engine)) {
      out += "{\"bench\":\"kv_bench\",\"summary\":\"ratio\",\"engine\":\"" + engine +
             "\",\"vs\":\"" + reference_ + "\",\"figure\":\"" + figure + "\"," +
             SpreadJson(spread) + "}\n";
    }
  }
  return out;
}

std::string RepeatSummary::Table() const {
  char line[256];
  std::string out = "median [min, max] over the repetitions\n";
  std::snprintf(line, sizeof(line), "%-10s %-26s %-26s %-26s %s\n", "engine", "write s", "read s",
                "peak RSS MiB", "errors (max)");
  out += line;
  for (const std::string& engine : engines_) {
    std::map<std::string, Spread> figures = Figures(engine);
    std::snprintf(line, sizeof(line), "%-10s %-26s %-26s %-26s %s\n", engine.c_str(),
                  Cell(figures["write_s"], 3, 1).c_str(), Cell(figures["read_s"], 3, 1).c_str(),
                  Cell(figures["peak_rss_bytes"], 0, 1 << 20).c_str(),
                  figures["errors"].count ? Number(figures["errors"].max).c_str() : "-");
    out += line;
  }
  bool header = false;
  for (const std::string& engine : engines_) {
    std::map<std::string, Spread> ratios = Ratios(engine);
    if (ratios.empty()) continue;
    if (!header) {
      out += "its time / " + reference_ + "'s, median of the per-repetition ratios [min, max]\n";
      header = true;
    }
    std::snprintf(line, sizeof(line), "%-10s write %-24s read %s\n", engine.c_str(),
                  Cell(ratios["write_s"], 2, 1, "x").c_str(),
                  Cell(ratios["read_s"], 2, 1, "x").c_str());
    out += line;
  }
  return out;
}

}  // namespace railyard::bench
