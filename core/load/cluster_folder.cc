// SPDX-License-Identifier: Apache-2.0
#include "core/load/cluster_folder.h"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <random>

namespace railyard::load {

std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

rpc::Status WriteFile(const std::filesystem::path& path, const std::string& text, mode_t mode) {
  {
    std::ofstream out(path, std::ios::trunc);
    out << text;
    if (!out.flush()) return {rpc::Code::kInternal, "cannot write " + path.string()};
  }
  if (::chmod(path.c_str(), mode) != 0) {
    return {rpc::Code::kInternal, "cannot chmod " + path.string()};
  }
  return rpc::Status::Ok();
}

std::string Lines(const std::vector<std::string>& tokens) {
  std::string text;
  for (const std::string& t : tokens) text += t + "\n";
  return text;
}

std::string RandomToken() {
  std::random_device random;
  std::string token;
  for (int i = 0; i < 4; ++i) {
    char word[9];
    std::snprintf(word, sizeof(word), "%08x", static_cast<unsigned>(random()));
    token += word;
  }
  return token;
}

}  // namespace railyard::load
