// SPDX-License-Identifier: Apache-2.0
#pragma once

// Where a suite finds the programs of its build and the files of the source tree, worked out at
// run time. A path compiled in (`-DRAILYARD_NODE="/clone/build/release/bin/railyard-node"`)
// differs in every clone, and ccache cannot rewrite paths inside -D values, so every test that
// had one was compiled again in each fresh CI clone (docs/ci.md).
//
// Every program of a build lands in its bin/ folder (CMAKE_RUNTIME_OUTPUT_DIRECTORY), the test
// executables among them, so a program's path is the running test's own folder; the source tree
// is the one named in the build folder's CMakeCache.txt. Header-only, no Qt. Thread-safe. A
// missing CMakeCache.txt is a broken build folder: the functions throw std::runtime_error.

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>

namespace railyard::testing {

namespace test_paths_detail {

// The build folder's bin/: where the running test executable is.
inline const std::filesystem::path& BinDir() {
  static const std::filesystem::path dir =
      std::filesystem::read_symlink("/proc/self/exe").parent_path();
  return dir;
}

inline std::filesystem::path ReadSourceDir() {
  const std::filesystem::path cache = BinDir().parent_path() / "CMakeCache.txt";
  std::ifstream in(cache);
  constexpr std::string_view kKey = "CMAKE_HOME_DIRECTORY:INTERNAL=";
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(kKey)) return line.substr(kKey.size());
  }
  throw std::runtime_error("test_paths: no CMAKE_HOME_DIRECTORY in " + cache.string() +
                           ": is this test running from its build folder's bin/?");
}

// Keeps each answer for the whole run, so that callers may hold the `const char*` (QProcess,
// std::string and QString all take one).
inline const char* Kept(const std::string& key, const std::filesystem::path& path) {
  static std::mutex mutex;
  static std::map<std::string, std::string> kept;
  std::lock_guard lock(mutex);
  return kept.try_emplace(key, path.string()).first->second.c_str();
}

}  // namespace test_paths_detail

// A program the build made, by its target name: BuiltProgram("railyardctl").
inline const char* BuiltProgram(std::string_view name) {
  return test_paths_detail::Kept("bin:" + std::string(name), test_paths_detail::BinDir() / name);
}

// A file or folder of the source tree, by its path from the top: SourcePath("tests/data").
inline const char* SourcePath(std::string_view relative) {
  static const std::filesystem::path source = test_paths_detail::ReadSourceDir();
  return test_paths_detail::Kept("src:" + std::string(relative), source / relative);
}

// The build folder's screenshots/, where widget tests leave pictures for people to look at.
inline const char* ScreenshotDir() {
  return test_paths_detail::Kept("screenshots",
                                 test_paths_detail::BinDir().parent_path() / "screenshots");
}

}  // namespace railyard::testing
