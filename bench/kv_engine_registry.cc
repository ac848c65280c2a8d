// SPDX-License-Identifier: Apache-2.0
// Which engines kv_bench knows and which of them this binary was built with.
#include <algorithm>

#include "bench/kv_engine.h"

namespace railyard::bench {
namespace {

#ifdef RAILYARD_KV_BENCH_HAS_DOCSTORE
constexpr bool kHasDocStore = true;
#else
constexpr bool kHasDocStore = false;
#endif

}  // namespace

const std::vector<std::string>& KnownEngines() {
  static const std::vector<std::string> kNames{"docstore", "leveldb", "rocksdb", "kyoto", "sqlite"};
  return kNames;
}

bool EngineBuilt(std::string_view name) {
  if (name == "docstore") return kHasDocStore;
  const std::vector<std::string>& known = KnownEngines();
  return std::find(known.begin(), known.end(), name) != known.end();
}

std::vector<std::string> BuiltEngines() {
  std::vector<std::string> built;
  for (const std::string& name : KnownEngines()) {
    if (EngineBuilt(name)) built.push_back(name);
  }
  return built;
}

std::unique_ptr<KvEngine> MakeEngine(std::string_view name) {
#ifdef RAILYARD_KV_BENCH_HAS_DOCSTORE
  if (name == "docstore") return MakeDocStoreEngine();
#endif
  if (name == "leveldb") return MakeLevelDbEngine();
  if (name == "rocksdb") return MakeRocksDbEngine();
  if (name == "kyoto") return MakeKyotoEngine();
  if (name == "sqlite") return MakeSqliteEngine();
  return nullptr;
}

}  // namespace railyard::bench
