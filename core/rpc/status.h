#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace railyard::rpc {

// Mirrors railyard.rpc.StatusCode in proto/railyard/rpc.proto (same numbers).
enum class Code : int {
  kOk = 0,
  kUnavailable = 1,
  kLameDuck = 2,
  kDeadlineExceeded = 3,
  kPoolExhausted = 4,
  kUnknownMethod = 5,
  kProtocolError = 6,
  kUnauthenticated = 7,
  kInternal = 8,
  kCancelled = 9,
  kInvalidArgument = 100,
  kNotFound = 101,
  kFailedPrecondition = 102,
  kCorrupted = 103,
  kResourceExhausted = 104,
  kApplicationError = 199,
};

std::string_view CodeName(Code code);

// True for failures that say nothing about the request itself, only about the server or the
// connection it travelled on: the client disposes of that connection and retries elsewhere.
bool IsRetryable(Code code);

// The outcome of an operation: a code and, on failure, a message for people.
class Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // "UNAVAILABLE: connection reset by peer"
  std::string ToString() const;

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

}  // namespace railyard::rpc
