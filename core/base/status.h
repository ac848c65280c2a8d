// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace railyard::base {

// What went wrong, for every library of core/ (storage/ keeps its own Status, being standalone).
// Codes 0-104 and 199 mirror railyard.rpc.StatusCode in proto/railyard/rpc.proto, number for
// number (core/rpc/status.cc checks it), so an rpc status crosses the wire as its number. Codes
// 105-108 are local: recordings report 105-107, and no server sends them today; 108 never leaves
// the process that made it.
enum class StatusCode : int {
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
  kBehind = 10,            // A replica has not applied what the request needs yet.
  kInvalidArgument = 100,  // Also: a file that is not a SQLite database, or not a recording.
  kNotFound = 101,         // Also: no such file, or nothing recorded.
  kFailedPrecondition = 102,
  kCorrupted = 103,  // Damaged data: a database, or a row whose contents do not parse.
  kResourceExhausted = 104,
  kNotSupported = 105,  // E.g. a recording from a newer format version.
  kBusy = 106,          // Another connection held a lock past the busy timeout.
  kIOError = 107,       // Anything else the file system or SQLite reported.
  // A handler run on an I/O thread (rpc::CallContext::may_wait false) that would have to wait:
  // the server runs it again on a worker (rpc::WouldWait()). Never sent.
  kWouldWait = 108,
  kApplicationError = 199,
};

// "UNAVAILABLE", "NOT_FOUND", ...: the wire enum's names.
std::string_view CodeName(StatusCode code);

// docs/figures.md, "Requests and their outcomes": whether a finished request counts as a failure.
// OK, NOT_FOUND (no such document) and BEHIND (a replica not yet at the asked position) are
// answers: the service did its job. Every other code is a failure. A call refused with
// POOL_EXHAUSTED before any attempt is a rejection, which its caller counts apart, first.
bool IsFailure(StatusCode code);

// The outcome of an operation: a code and, on failure, a message for people. A failure's message
// names what failed (the server, the recording file, the SQLite statement).
class Status {
 public:
  using Code = StatusCode;

  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }
  static Status NotFound(std::string message) { return {Code::kNotFound, std::move(message)}; }
  static Status InvalidArgument(std::string message) {
    return {Code::kInvalidArgument, std::move(message)};
  }
  static Status NotSupported(std::string message) {
    return {Code::kNotSupported, std::move(message)};
  }
  static Status Corruption(std::string message) { return {Code::kCorrupted, std::move(message)}; }
  static Status Busy(std::string message) { return {Code::kBusy, std::move(message)}; }
  static Status IOError(std::string message) { return {Code::kIOError, std::move(message)}; }

  bool ok() const { return code_ == Code::kOk; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsNotSupported() const { return code_ == Code::kNotSupported; }
  bool IsCorruption() const { return code_ == Code::kCorrupted; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // "UNAVAILABLE: connection reset by peer"; "OK" when ok.
  std::string ToString() const;

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

}  // namespace railyard::base
