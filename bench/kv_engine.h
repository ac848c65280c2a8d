// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace railyard::bench {

enum class ReadOutcome { kFound, kNotFound, kFailed };

// One key-value store under test in kv_bench, behind the few calls the benchmark makes. Each
// adapter uses its engine's ordinary API with the configuration its factory documents; none syncs
// per write.
//
// Thread safety: one thread at a time. Call order: Open, Puts, FinishWrites, Gets, FinishReads,
// Close; the destructor closes an engine that is still open.
class KvEngine {
 public:
  virtual ~KvEngine() = default;

  // Creates the store in `directory`, which exists and is empty. Untimed.
  virtual bool Open(const std::string& directory, std::string* error) = 0;
  // Stores `value` under `key` with the engine's ordinary write call.
  virtual bool Put(uint64_t key, std::string_view value, std::string* error) = 0;
  // Timed with the writes: whatever completes them in the engine's normal use (SQLite commits
  // its open transaction). Nothing for most engines; never an extra sync or flush.
  virtual bool FinishWrites(std::string* /*error*/) { return true; }
  // kFound with *value set, kNotFound, or kFailed with *error set.
  virtual ReadOutcome Get(uint64_t key, std::string* value, std::string* error) = 0;
  // Timed with the reads: ends whatever the reads left open (SQLite's read transaction).
  virtual bool FinishReads(std::string* /*error*/) { return true; }
  // Closes the store and releases its memory. Untimed.
  virtual bool Close(std::string* error) = 0;

  // The engine's version and configuration, one line for stderr. REQUIRES: Open succeeded.
  virtual std::string Describe() const = 0;
  // Engine-specific figures for its JSON line, each as `,"name":value`; taken after the reads,
  // before Close. Empty for most engines.
  virtual std::string ExtraJsonFields() { return {}; }
};

// All engines kv_bench knows, in their default run order.
const std::vector<std::string>& KnownEngines();
// Whether `name` is known and compiled into this binary (docstore is only when the build found
// railyard_storage).
bool EngineBuilt(std::string_view name);
// Names of the built engines, in default run order.
std::vector<std::string> BuiltEngines();
// A closed engine, or nullptr if `name` is not built.
std::unique_ptr<KvEngine> MakeEngine(std::string_view name);

// Peers order keys as byte strings; big-endian makes that the numeric order of the ids.
inline void EncodeBigEndian(uint64_t key, char out[8]) {
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<char>(key & 0xff);
    key >>= 8;
  }
}

// The adapters (one file each).
std::unique_ptr<KvEngine> MakeDocStoreEngine();
std::unique_ptr<KvEngine> MakeLevelDbEngine();
std::unique_ptr<KvEngine> MakeRocksDbEngine();
std::unique_ptr<KvEngine> MakeKyotoEngine();
std::unique_ptr<KvEngine> MakeSqliteEngine();

}  // namespace railyard::bench
