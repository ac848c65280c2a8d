// SPDX-License-Identifier: Apache-2.0
// A child process for the crash test: opens a store with sync-every-write (or, given "none",
// SyncPolicy::kNone) and writes until it is killed, printing "BEGIN id gen" before each write and
// "ACK id gen" once it is acknowledged. "none-large": the same with 4-7 KB documents
// (testing::LargeDocFor).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "tests/storage/storage_test_support.h"

int main(int argc, char** argv) {
  const bool large = argc == 5 && std::strcmp(argv[4], "none-large") == 0;
  if (argc != 4 && !(argc == 5 && (std::strcmp(argv[4], "none") == 0 || large))) {
    std::fprintf(stderr, "usage: %s DIR ROUND MEMTABLE_ENTRIES [none|none-large]\n", argv[0]);
    return 2;
  }
  using namespace railyard::storage;
  Options options = testing::SmallOptions(std::strtoull(argv[3], nullptr, 10));
  // "none": SyncPolicy::kNone, whose promise (survives a crash of the process) a SIGKILL tests.
  options.sync = argc == 5 ? SyncPolicy::kNone : SyncPolicy::kEveryWrite;
  const uint32_t round = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
  std::unique_ptr<DocStore> store;
  if (Status s = DocStore::Open(options, argv[1], &store); !s.ok()) {
    std::fprintf(stderr, "open: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("OPEN\n");
  std::fflush(stdout);
  std::mt19937_64 rng(round);
  // New ids for this round, mixed with overwrites of earlier rounds' ids.
  for (uint64_t n = 0;; ++n) {
    const uint64_t id = (round > 0 && rng() % 3 == 0) ? rng() % (uint64_t{round} * 1000)
                                                      : uint64_t{round} * 1000 + n % 1000;
    std::printf("BEGIN %llu %u\n", static_cast<unsigned long long>(id), round);
    std::fflush(stdout);
    if (Status s =
            store->Put(id, large ? testing::LargeDocFor(id, round) : testing::DocFor(id, round));
        !s.ok()) {
      std::fprintf(stderr, "put: %s\n", s.ToString().c_str());
      return 1;
    }
    std::printf("ACK %llu %u\n", static_cast<unsigned long long>(id), round);
    std::fflush(stdout);
  }
}
