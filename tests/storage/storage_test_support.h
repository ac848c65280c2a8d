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
// DocFor's document padded to 4-7 KB: its log record is a page or more, which the log writes with
// pwrite(2) rather than through its mapping (storage/wal.h).
std::string LargeDocFor(uint64_t id, uint32_t generation = 0);

std::unique_ptr<DocStore> OpenOrDie(const Options& options, const std::string& directory);

// Fetches from `updater` and applies to `replica` until the replica holds the whole queue, as a
// replica's follower does. Returns the number of chunks moved; throws on an error.
int FollowQueue(DocStore& updater, DocStore& replica, size_t max_bytes = 64 * 1024);

// `base` for a replica's store.
Options ReplicaOptions(const Options& base);

}  // namespace railyard::storage::testing
