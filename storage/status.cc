// SPDX-License-Identifier: Apache-2.0
#include "storage/status.h"

namespace railyard::storage {

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code_) {
    case Code::kOk:
      return "OK";
    case Code::kNotFound:
      name = "NotFound";
      break;
    case Code::kCorruption:
      name = "Corruption";
      break;
    case Code::kIOError:
      name = "IOError";
      break;
    case Code::kInvalidArgument:
      name = "InvalidArgument";
      break;
    case Code::kBusy:
      name = "Busy";
      break;
    case Code::kNoSpace:
      name = "NoSpace";
      break;
    case Code::kWouldWait:
      name = "WouldWait";
      break;
  }
  return message_.empty() ? std::string(name) : std::string(name) + ": " + message_;
}

}  // namespace railyard::storage
