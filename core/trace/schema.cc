// SPDX-License-Identifier: Apache-2.0
#include "core/trace/schema.h"

#include <charconv>
#include <chrono>
#include <map>
#include <string>

namespace railyard::trace::internal {
namespace {

constexpr char kSchemaSql[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE snapshots(node TEXT NOT NULL, unix_ms INTEGER NOT NULL,"
    " sequence INTEGER NOT NULL, telemetry BLOB NOT NULL);"
    "CREATE INDEX snapshots_by_time ON snapshots(unix_ms, node, sequence);"
    "CREATE INDEX snapshots_by_node ON snapshots(node, unix_ms, sequence);"
    "CREATE TABLE events(unix_ms INTEGER NOT NULL, node TEXT NOT NULL, kind TEXT NOT NULL,"
    " detail TEXT NOT NULL);"
    "CREATE INDEX events_by_time ON events(unix_ms);"
    "CREATE TABLE workload(unix_ms INTEGER NOT NULL, op TEXT NOT NULL, key INTEGER NOT NULL,"
    " size INTEGER NOT NULL);"
    "CREATE INDEX workload_by_time ON workload(unix_ms);";

bool ParseInt64(std::string_view text, int64_t* value) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return ec == std::errc() && ptr == end && !text.empty();
}

Status NotARecording(const Database& db, std::string_view why) {
  return Status::InvalidArgument(db.path() + ": a SQLite database but not a Railyard recording (" +
                                 std::string(why) + ")");
}

}  // namespace

Status InspectRecording(Database* db, bool* empty, RecordingInfo* info) {
  *empty = false;
  *info = RecordingInfo();
  int64_t tables = 0;
  bool has_meta = false;
  {
    // The first read of the file: this is where a file that is not a database shows itself.
    Statement count;
    Status status = count.Prepare(
        db, "SELECT count(*), sum(type = 'table' AND name = 'meta') FROM sqlite_master");
    bool row = false;
    if (status.ok()) status = count.Step(&row);
    if (!status.ok()) {
      if ((sqlite3_errcode(db->get()) & 0xff) == SQLITE_NOTADB) {
        return Status::InvalidArgument(db->path() + ": not a SQLite database, so not a recording");
      }
      return status;
    }
    tables = count.ColumnInt64(0);
    has_meta = count.ColumnInt64(1) > 0;
  }
  if (tables == 0) {
    *empty = true;
    return Status::Ok();
  }
  if (!has_meta) return NotARecording(*db, "no meta table");

  std::map<std::string, std::string, std::less<>> meta;
  {
    Statement select;
    if (!select.Prepare(db, "SELECT key, value FROM meta").ok()) {
      return NotARecording(*db, "its meta table has no key and value columns");
    }
    bool row = false;
    Status status;
    while ((status = select.Step(&row)).ok() && row) {
      meta[std::string(select.ColumnText(0))] = std::string(select.ColumnText(1));
    }
    if (!status.ok()) return status;
  }
  const auto format = meta.find("format");
  if (format == meta.end() || format->second != kFormatName) {
    return NotARecording(*db, "meta has no format = 'railyard-recording'");
  }
  const auto version = meta.find("format_version");
  int64_t version_number = 0;
  if (version == meta.end() || !ParseInt64(version->second, &version_number) ||
      version_number < 1) {
    return Status::Corruption(db->path() + ": recording meta has no valid format_version (" +
                              (version == meta.end() ? std::string("missing") : version->second) +
                              ")");
  }
  if (version_number > kFormatVersion) {
    return Status::NotSupported(db->path() + ": recording format version " + version->second +
                                " is newer than this build reads (" +
                                std::to_string(kFormatVersion) + "); upgrade Railyard");
  }
  info->format_version = static_cast<int>(version_number);
  if (const auto created = meta.find("created_unix_ms"); created != meta.end()) {
    ParseInt64(created->second, &info->created_unix_ms);
  }
  if (const auto writer = meta.find("writer"); writer != meta.end()) info->writer = writer->second;
  return Status::Ok();
}

Status CreateSchema(Database* db, std::string_view writer, int64_t created_unix_ms) {
  if (Status status = db->Exec(kSchemaSql); !status.ok()) return status;
  Statement insert;
  if (Status status = insert.Prepare(db, "INSERT INTO meta(key, value) VALUES(?1, ?2)");
      !status.ok()) {
    return status;
  }
  const std::string version = std::to_string(kFormatVersion);
  const std::string created = std::to_string(created_unix_ms);
  const std::pair<std::string_view, std::string_view> rows[] = {
      {"format", kFormatName},
      {"format_version", version},
      {"created_unix_ms", created},
      {"writer", writer},
  };
  for (const auto& [key, value] : rows) {
    insert.BindText(1, key);
    insert.BindText(2, value);
    if (Status status = insert.Run(); !status.ok()) return status;
  }
  return Status::Ok();
}

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace railyard::trace::internal
