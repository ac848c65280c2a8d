// SPDX-License-Identifier: Apache-2.0
// Runs a fuzz target's entry point over files, without libFuzzer: the seed corpus and every crash
// ever found run this way in the default test suite (and under ASan), with any compiler.
#include <sys/resource.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_support.h"

namespace {

int RunFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
#if !defined(__SANITIZE_ADDRESS__)
  // libFuzzer fails an input that allocates past -rss_limit_mb; here a 1 GiB address-space cap
  // makes an allocation bomb fail the same way (ASan reserves far more, so not under ASan).
  const rlimit cap{rlim_t{1} << 30, rlim_t{1} << 30};
  setrlimit(RLIMIT_AS, &cap);
#endif
  int inputs = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        if (entry.is_regular_file()) inputs += RunFile(entry.path());
      }
    } else if (std::filesystem::exists(arg)) {
      inputs += RunFile(arg);
    }
  }
  std::printf("ran %d inputs without a crash\n", inputs);
  return inputs > 0 ? 0 : 1;
}
