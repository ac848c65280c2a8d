// SPDX-License-Identifier: Apache-2.0
#include "core/rpc/io_engine.h"

namespace railyard::rpc {

std::string_view IoEngineName(IoEngine engine) {
  switch (engine) {
    case IoEngine::kAuto:
      return "auto";
    case IoEngine::kEpoll:
      return "epoll";
    case IoEngine::kIoUring:
      return "io_uring";
  }
  return "auto";
}

std::optional<IoEngine> ParseIoEngine(std::string_view text) {
  for (IoEngine engine : {IoEngine::kAuto, IoEngine::kEpoll, IoEngine::kIoUring}) {
    if (text == IoEngineName(engine)) return engine;
  }
  return std::nullopt;
}

}  // namespace railyard::rpc
