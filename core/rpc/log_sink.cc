// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/log_sink.h"

#include <atomic>
#include <utility>

#include "core/base/mutex.h"
#include "core/rpc/logging.h"

namespace railyard::rpc {
namespace {

// The sink is called with the mutex held: calls never overlap, and SetLogSink (which takes it
// too) can promise that the old sink is not running once it returns. Lines are few (starts,
// stops, refused connections), so the lock costs nothing that matters; the flag spares the
// default path even that.
struct SinkSlot {
  base::Mutex mutex;
  LogSink sink RAILYARD_GUARDED_BY(mutex);
  std::atomic<bool> set{false};
};

SinkSlot& Slot() {
  static SinkSlot* slot = new SinkSlot;  // Never destroyed: threads may log during exit.
  return *slot;
}

}  // namespace

std::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

void SetLogSink(LogSink sink) {
  SinkSlot& slot = Slot();
  base::MutexLock lock(slot.mutex);
  const bool set = static_cast<bool>(sink);
  slot.sink = std::move(sink);
  slot.set.store(set, std::memory_order_release);
}

namespace internal {

bool HasLogSink() { return Slot().set.load(std::memory_order_acquire); }

void LogToSink(LogLevel level, std::string_view line) {
  {
    SinkSlot& slot = Slot();
    base::MutexLock lock(slot.mutex);
    if (slot.sink) {
      slot.sink(level, line);
      return;
    }
  }
  spdlog::log(SpdlogLevel(level), "{}", line);  // The sink was removed since HasLogSink.
}

spdlog::level::level_enum SpdlogLevel(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return spdlog::level::debug;
    case LogLevel::kInfo:
      return spdlog::level::info;
    case LogLevel::kWarning:
      return spdlog::level::warn;
    case LogLevel::kError:
      return spdlog::level::err;
  }
  return spdlog::level::info;
}

}  // namespace internal
}  // namespace railyard::rpc
