#include "core/trace/status.h"

namespace railyard::trace {

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code_) {
    case Code::kOk:
      return "OK";
    case Code::kNotFound:
      name = "NotFound";
      break;
    case Code::kInvalidArgument:
      name = "InvalidArgument";
      break;
    case Code::kNotSupported:
      name = "NotSupported";
      break;
    case Code::kCorruption:
      name = "Corruption";
      break;
    case Code::kBusy:
      name = "Busy";
      break;
    case Code::kIOError:
      name = "IOError";
      break;
  }
  return message_.empty() ? std::string(name) : std::string(name) + ": " + message_;
}

}  // namespace railyard::trace
