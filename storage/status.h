// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

namespace railyard::storage {

// The outcome of a storage operation. Corruption always names the file and what was wrong, so an
// operator can tell a damaged document from a damaged store.
class Status {
 public:
  // kWouldWait: a call that must not wait (DocStore::WriteNoWait) would have had to; nothing was
  // done.
  enum class Code {
    kOk,
    kNotFound,
    kCorruption,
    kIOError,
    kInvalidArgument,
    kBusy,
    kNoSpace,
    kWouldWait
  };

  Status() = default;
  static Status Ok() { return {}; }
  static Status NotFound(std::string message = {}) { return {Code::kNotFound, std::move(message)}; }
  static Status Corruption(std::string message) { return {Code::kCorruption, std::move(message)}; }
  static Status IOError(std::string message) { return {Code::kIOError, std::move(message)}; }
  static Status InvalidArgument(std::string message) {
    return {Code::kInvalidArgument, std::move(message)};
  }
  static Status Busy(std::string message) { return {Code::kBusy, std::move(message)}; }
  static Status NoSpace(std::string message) { return {Code::kNoSpace, std::move(message)}; }
  static Status WouldWait(std::string message) { return {Code::kWouldWait, std::move(message)}; }

  bool ok() const { return code_ == Code::kOk; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsWouldWait() const { return code_ == Code::kWouldWait; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

 private:
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

}  // namespace railyard::storage
