#pragma once

#include <string>
#include <utility>

namespace railyard::trace {

// The outcome of a recording operation. A failure's message names the recording file and, for a
// SQLite failure, the statement that failed, so an operator can tell which file is at fault.
class Status {
 public:
  enum class Code {
    kOk,
    kNotFound,         // no such file, or nothing recorded
    kInvalidArgument,  // the file is not a SQLite database, or not a recording
    kNotSupported,     // a recording from a newer format version
    kCorruption,       // damaged database or a row whose contents do not parse
    kBusy,             // another connection held a lock past the busy timeout
    kIOError,          // anything else SQLite or the file system reported
  };

  Status() = default;
  static Status Ok() { return {}; }
  static Status NotFound(std::string message) { return {Code::kNotFound, std::move(message)}; }
  static Status InvalidArgument(std::string message) {
    return {Code::kInvalidArgument, std::move(message)};
  }
  static Status NotSupported(std::string message) {
    return {Code::kNotSupported, std::move(message)};
  }
  static Status Corruption(std::string message) { return {Code::kCorruption, std::move(message)}; }
  static Status Busy(std::string message) { return {Code::kBusy, std::move(message)}; }
  static Status IOError(std::string message) { return {Code::kIOError, std::move(message)}; }

  bool ok() const { return code_ == Code::kOk; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsNotSupported() const { return code_ == Code::kNotSupported; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // "Corruption: /tmp/a.ryrec: ..."
  std::string ToString() const;

 private:
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  Code code_ = Code::kOk;
  std::string message_;
};

}  // namespace railyard::trace
