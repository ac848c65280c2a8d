// SPDX-License-Identifier: Apache-2.0
#pragma once

// Writing a local cluster's folder (the demo's, the lab's): config and token files, text-format
// strings.

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/rpc/status.h"

namespace railyard::load {

// A protobuf text-format string literal.
std::string Quoted(const std::string& text);
// Writes `text` to `path` (replacing it) with permissions `mode` (0600 for tokens).
rpc::Status WriteFile(const std::filesystem::path& path, const std::string& text, mode_t mode);
// One token per line.
std::string Lines(const std::vector<std::string>& tokens);
// A fresh secret (128 bits, hex).
std::string RandomToken();

}  // namespace railyard::load
