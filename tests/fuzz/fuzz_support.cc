// SPDX-License-Identifier: Apache-2.0
#include "tests/fuzz/fuzz_support.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace railyard::fuzz {

std::string WriteScratchFile(const uint8_t* data, size_t size, const std::string& name) {
  static const std::filesystem::path folder = [] {
    std::filesystem::path p =
        std::filesystem::temp_directory_path() / ("railyard-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
    return p;
  }();
  const std::filesystem::path path = folder / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path.string();
}

}  // namespace railyard::fuzz
