// SPDX-License-Identifier: Apache-2.0
#include "flags.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace greeter {

std::optional<Flags> Flags::Parse(int argc, char** argv, const std::vector<std::string>& known,
                                  std::string* error) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      flags.help_ = true;
      return flags;
    }
    if (std::find(known.begin(), known.end(), arg) == known.end()) {
      *error = "unknown argument '" + arg + "' (--help lists the flags)";
      return std::nullopt;
    }
    if (i + 1 >= argc) {
      *error = arg + " needs a value";
      return std::nullopt;
    }
    flags.values_[arg].push_back(argv[++i]);
  }
  return flags;
}

std::string Flags::Get(const std::string& name, const std::string& fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> Flags::All(const std::string& name) const {
  const auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

bool ReadTokenFile(const std::string& path, std::vector<std::string>* tokens, std::string* error) {
  tokens->clear();
  if (path.empty()) return true;
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  for (std::string line; std::getline(in, line);) {
    const size_t begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos) continue;
    tokens->push_back(line.substr(begin, line.find_last_not_of(" \t\r") + 1 - begin));
  }
  return true;
}

}  // namespace greeter
