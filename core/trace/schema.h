// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to core/trace: creating and recognising the recording schema described in
// core/trace/recording.h.

#include <cstdint>
#include <string_view>

#include "core/trace/recording.h"
#include "core/trace/sqlite_handle.h"
#include "core/trace/status.h"

namespace railyard::trace::internal {

// Looks at what `db` holds without changing it. Sets *empty if it holds no tables at all (a new
// or zero-length file). Otherwise the database must be a recording this build can read, and
// *info is filled in; errors: InvalidArgument (not a SQLite database, not a recording),
// NotSupported (a newer format version), Corruption (damaged meta data).
Status InspectRecording(Database* db, bool* empty, RecordingInfo* info);

// Creates the tables, the indexes and the meta rows of an empty database.
// REQUIRES: inside a write transaction; InspectRecording() found the database empty.
Status CreateSchema(Database* db, std::string_view writer, int64_t created_unix_ms);

int64_t NowUnixMs();

}  // namespace railyard::trace::internal
