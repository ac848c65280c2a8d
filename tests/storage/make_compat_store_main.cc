// SPDX-License-Identifier: Apache-2.0
// Writes the store a release leaves for the next ones to open (compat_store.h):
//   make_compat_store tests/data/compat/docstore-<version>
// Run once per release whose on-disk format is kept; the folder is checked in.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "storage/docstore.h"
#include "tests/storage/compat_store.h"

using namespace railyard::storage;
using namespace railyard::storage::testing;

int main(int argc, char** argv) {
  if (argc != 2 || std::filesystem::exists(argv[1])) {
    std::fprintf(stderr, "usage: make_compat_store NEW_FOLDER\n");
    return 2;
  }
  Options options;
  options.memtable_entries = kCompatMemtableEntries;
  std::unique_ptr<DocStore> store;
  Status s = DocStore::Open(options, argv[1], &store);
  for (uint64_t id = 1; s.ok() && id <= kCompatFlushed; ++id) s = store->Put(id, CompatDoc(id));
  for (uint64_t id = 10; s.ok() && id <= kCompatFlushed; id += 10) s = store->Delete(id);
  if (s.ok()) s = store->Flush();
  for (uint64_t id = kCompatFlushed + 1; s.ok() && id <= kCompatLast; ++id) {
    s = store->Put(id, CompatDoc(id));
  }
  if (s.ok()) s = store->Close();
  if (!s.ok()) {
    std::fprintf(stderr, "make_compat_store: %s\n", s.ToString().c_str());
    return 1;
  }
  std::filesystem::remove(std::filesystem::path(argv[1]) / "LOCK");
  return 0;
}
