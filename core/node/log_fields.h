// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace railyard::node {

// A structured field of a log line, e.g. {"RAILYARD_AUDIT_ACTION", "admin.Drain"}. Names follow
// journald's rules: upper-case letters, digits and underscores, not starting with '_'.
struct LogField {
  const char* name;
  std::string value;
};

// Structured fields for the log lines this thread writes while the object lives, beside their
// text (spdlog carries text only). A sink that understands fields (railyard-node's journald sink)
// sends them as fields of their own, so `journalctl RAILYARD_AUDIT_ACTION=admin.Drain` finds the
// line; every other sink ignores them. Scopes nest: the innermost one's fields are in force.
//
// Thread safety: the fields are the constructing thread's own (thread_local); spdlog's synchronous
// loggers run their sinks on the logging thread, which is what makes them visible there.
class ScopedLogFields {
 public:
  explicit ScopedLogFields(std::vector<LogField> fields)
      : fields_(std::move(fields)), previous_(current()) {
    current() = &fields_;
  }
  ~ScopedLogFields() { current() = previous_; }
  ScopedLogFields(const ScopedLogFields&) = delete;
  ScopedLogFields& operator=(const ScopedLogFields&) = delete;

  // The fields in force on this thread; null outside every scope.
  static const std::vector<LogField>* Current() { return current(); }

 private:
  static const std::vector<LogField>*& current() {
    thread_local const std::vector<LogField>* fields = nullptr;
    return fields;
  }

  const std::vector<LogField> fields_;
  const std::vector<LogField>* const previous_;
};

}  // namespace railyard::node
