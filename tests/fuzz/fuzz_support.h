// SPDX-License-Identifier: Apache-2.0
#pragma once

// Shared by the fuzz targets: a scratch file for decoders that read from a path.

#include <cstddef>
#include <cstdint>
#include <string>

namespace railyard::fuzz {

// Writes `data` to this process's scratch file (replacing it) and returns its path. The file
// lives in a per-process temporary folder so parallel fuzzers never share it.
std::string WriteScratchFile(const uint8_t* data, size_t size, const std::string& name);

}  // namespace railyard::fuzz

// The libFuzzer entry point each target defines.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
