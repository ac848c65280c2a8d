// SPDX-License-Identifier: Apache-2.0
#pragma once

// The example programs' command lines: `--flag value` pairs and `--help`. A real service would
// use its own flags library; this keeps the example free of dependencies.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace greeter {

class Flags {
 public:
  // `known`: the flags this program takes. On an unknown flag or a missing value, *error says
  // which and nothing is returned; `--help` returns Flags with help() true.
  static std::optional<Flags> Parse(int argc, char** argv, const std::vector<std::string>& known,
                                    std::string* error);

  bool help() const { return help_; }
  // The last value of `name`, or `fallback` if it was not given.
  std::string Get(const std::string& name, const std::string& fallback = {}) const;
  // Every value of a repeatable flag, in order.
  std::vector<std::string> All(const std::string& name) const;

 private:
  bool help_ = false;
  std::map<std::string, std::vector<std::string>> values_;
};

// A token file's tokens, one per line (blank lines and surrounding spaces ignored); an empty
// path gives none. False, with *error naming the file, if it cannot be read.
bool ReadTokenFile(const std::string& path, std::vector<std::string>* tokens, std::string* error);

}  // namespace greeter
