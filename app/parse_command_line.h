// SPDX-License-Identifier: Apache-2.0
#pragma once

// Command-line parsing shared by railyardctl and railyard-node: the exit codes docs/guide.md
// promises (0 for --help and --version, 2 for every usage error) rather than CLI11's own (105-109).
#include <CLI/CLI.hpp>
#include <optional>

namespace railyard::app {

constexpr int kUsageExitCode = 2;

// Parses the command line into `app`. Returns nothing when the program should go on; otherwise
// the code to exit with, after CLI11 printed the help, the version or the error (stderr).
inline std::optional<int> ParseCommandLine(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    const int printed = app.exit(e);  // Prints; 0 for --help and --version.
    return printed == static_cast<int>(CLI::ExitCodes::Success) ? 0 : kUsageExitCode;
  }
}

}  // namespace railyard::app
