// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to storage/: the names of the files in a store directory.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "storage/env.h"
#include "storage/status.h"

namespace railyard::storage {

// "<prefix><6+ digits><suffix>", e.g. NumberedName("wal-", 7, ".log") == "wal-000007.log".
std::string NumberedName(std::string_view prefix, uint64_t number, std::string_view suffix);
bool ParseNumberedName(std::string_view name, std::string_view prefix, std::string_view suffix,
                       uint64_t* number);
// Numbers of the files in `directory` named with `prefix` and `suffix`, ascending. An error names
// the directory and the reason.
Status ListNumbered(Env* env, const std::string& directory, std::string_view prefix,
                    std::string_view suffix, std::vector<uint64_t>* numbers);

inline constexpr char kSegmentPrefix[] = "segment-";
inline constexpr char kSegmentSuffix[] = ".seg";
inline constexpr char kWalPrefix[] = "wal-";
inline constexpr char kWalSuffix[] = ".log";
inline constexpr char kIndexPrefix[] = "index-";
inline constexpr char kIndexSuffix[] = ".idx";
inline constexpr char kBloomSuffix[] = ".bloom";
inline constexpr char kManifestName[] = "MANIFEST";
inline constexpr char kLockName[] = "LOCK";

}  // namespace railyard::storage
