// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "core/trace/recording_writer.h"
#include "core/trace/status.h"
#include "railyard/admin.pb.h"

namespace railyard::trace {

// Turns a stream of telemetry snapshots into a recording: each snapshot as a row, and each
// command in a snapshot's recent commands as an event, once (a node repeats its recent commands
// in every snapshot). The one recorder behind `railyardctl record` and the console's recorder.
//
// Thread safety: one thread at a time (or externally synchronized), like the writer.
class TelemetryRecorder {
 public:
  // `writer` must outlive the recorder.
  explicit TelemetryRecorder(RecordingWriter* writer) : writer_(writer) {}

  // Appends the snapshot of `node` and the commands it shows that are newer than any recorded
  // for that node. `*new_events` (if given) counts the events appended.
  Status Record(const std::string& node, const admin::Telemetry& telemetry,
                uint64_t* new_events = nullptr);
  // The poll of `node` failed at `unix_ms` for `reason`: a kEventUnreachable event, once until
  // the node's next snapshot. `*new_events` (if given) counts it.
  Status RecordUnreachable(const std::string& node, int64_t unix_ms, std::string_view reason,
                           uint64_t* new_events = nullptr);
  // Marks the commands `telemetry` shows as already seen, without recording anything: for what
  // happened before a recording started.
  void SkipHistory(const std::string& node, const admin::Telemetry& telemetry);
  // Forgets what was seen (the cluster changed).
  void Reset() {
    newest_command_ms_.clear();
    unreachable_.clear();
  }

 private:
  RecordingWriter* const writer_;
  std::map<std::string, int64_t> newest_command_ms_;  // Per node.
  std::set<std::string> unreachable_;  // Nodes whose outage is recorded, until their next snapshot.
};

}  // namespace railyard::trace
