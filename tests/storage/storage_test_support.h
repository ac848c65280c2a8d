// SPDX-License-Identifier: Apache-2.0
#pragma once

// Helpers for the storage tests: small options, opening stores in temporary folders, documents
// derived from ids so a test can check any read without remembering what it wrote.

#include <cstdint>
#include <memory>
#include <string>

#include "storage/docstore.h"

namespace railyard::storage::testing {

// Options small enough that flushes and compactions happen within a test; logs are collected.
Options SmallOptions(size_t memtable_entries = 1000);

// The document a test writes for `id` in `generation`: distinct per id and generation.
std::string DocFor(uint64_t id, uint32_t generation = 0);

std::unique_ptr<DocStore> OpenOrDie(const Options& options, const std::string& directory);

}  // namespace railyard::storage::testing
