// SPDX-License-Identifier: Apache-2.0
#include "storage/manifest.h"

#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "storage/coding.h"

namespace railyard::storage {

namespace {
constexpr char kHeader[] = "railyard-docstore-manifest 1";
}  // namespace

std::string EncodeManifest(const Manifest& m) {
  std::ostringstream out;
  out << kHeader << "\n";
  out << "next_file " << m.next_file << "\n";
  out << "wal_start " << m.wal_start << "\n";
  out << "durable " << m.durable.segment << " " << m.durable.offset << "\n";
  out << "index_entry_writes " << m.index_entry_writes << "\n";
  out << "appended_docs " << m.appended_docs << "\n";
  out << "dead_docs " << m.dead_docs << "\n";
  for (const ManifestIndex& index : m.indexes) {
    out << "index " << index.number << " " << index.entries << "\n";
  }
  std::string body = out.str();
  char sum[40];
  std::snprintf(sum, sizeof(sum), "checksum %016" PRIx64 "\n",
                Checksum64(body.data(), body.size()));
  return body + sum;
}

Status DecodeManifest(const std::string& text, Manifest* m) {
  const size_t checksum_at = text.rfind("checksum ");
  if (checksum_at == std::string::npos) return Status::Corruption("MANIFEST has no checksum line");
  uint64_t expected = 0;
  if (std::sscanf(text.c_str() + checksum_at, "checksum %" SCNx64, &expected) != 1 ||
      Checksum64(text.data(), checksum_at) != expected) {
    return Status::Corruption("MANIFEST checksum mismatch");
  }
  std::istringstream in(text.substr(0, checksum_at));
  std::string line;
  if (!std::getline(in, line) || line != kHeader) {
    return Status::Corruption("MANIFEST has an unknown header: " + line);
  }
  *m = Manifest{};
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    fields >> key;
    bool ok = true;
    if (key == "next_file") {
      ok = static_cast<bool>(fields >> m->next_file);
    } else if (key == "wal_start") {
      ok = static_cast<bool>(fields >> m->wal_start);
    } else if (key == "durable") {
      ok = static_cast<bool>(fields >> m->durable.segment >> m->durable.offset);
    } else if (key == "index_entry_writes") {
      ok = static_cast<bool>(fields >> m->index_entry_writes);
    } else if (key == "appended_docs") {
      ok = static_cast<bool>(fields >> m->appended_docs);
    } else if (key == "dead_docs") {
      ok = static_cast<bool>(fields >> m->dead_docs);
    } else if (key == "index") {
      ManifestIndex index;
      ok = static_cast<bool>(fields >> index.number >> index.entries);
      m->indexes.push_back(index);
    } else {
      return Status::Corruption("MANIFEST has an unknown line: " + line);
    }
    if (!ok) return Status::Corruption("MANIFEST has a malformed line: " + line);
  }
  return Status::Ok();
}

}  // namespace railyard::storage
