// SPDX-License-Identifier: Apache-2.0
// main() of every test executable: runs the suite that its first argument names
// (tests/support/qtest_main.h).
#include "tests/support/qtest_main.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

namespace railyard::qtest_main {
namespace {

std::map<std::string, QtestSuiteRunner>& Suites() {
  static std::map<std::string, QtestSuiteRunner> suites;
  return suites;
}

}  // namespace

bool RegisterQtestSuite(const char* name, QtestSuiteRunner run) {
  Suites()[name] = run;
  return true;
}

}  // namespace railyard::qtest_main

int main(int argc, char* argv[]) {
  const auto& suites = railyard::qtest_main::Suites();
  if (argc >= 2) {
    if (const auto it = suites.find(argv[1]); it != suites.end()) {
      // The suite sees the program's name and the options after its own name.
      argv[1] = argv[0];
      return it->second(argc - 1, argv + 1);
    }
  }
  if (suites.size() == 1) return suites.begin()->second(argc, argv);
  std::fprintf(stderr, "usage: %s SUITE [QtTest options, e.g. -functions or a test function]\n",
               argv[0]);
  std::fprintf(stderr, "suites:");
  for (const auto& [name, run] : suites) std::fprintf(stderr, " %s", name.c_str());
  std::fprintf(stderr, "\n");
  return 2;
}
