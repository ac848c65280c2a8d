// SPDX-License-Identifier: Apache-2.0
// DocStore::Snapshot: a consistent copy of the store in a folder of its own, made of hard links
// to the files that never change again and copies of the bytes that still might.

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <vector>

#include "storage/docstore_impl.h"
#include "storage/file.h"
#include "storage/filenames.h"
#include "storage/manifest.h"

namespace railyard::storage {

namespace {

namespace fs = std::filesystem;

using SnapshotInfo = DocStore::SnapshotInfo;

// Copies the first `length` bytes of `from` into a new file `to` and syncs it.
Status CopyPrefix(Env* env, const std::string& from, const std::string& to, uint64_t length,
                  SnapshotInfo* info) {
  File in, out;
  if (Status s = File::Open(env, from, File::Mode::kRead, false, &in); !s.ok()) return s;
  if (Status s = File::Open(env, to, File::Mode::kAppend, true, &out); !s.ok()) return s;
  std::vector<char> buffer(1 << 20);
  for (uint64_t done = 0; done < length;) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(buffer.size(), length - done));
    size_t got = 0;
    if (Status s = in.ReadAt(done, want, buffer.data(), &got); !s.ok()) return s;
    if (got == 0) return Status::Corruption(from + " ends before byte " + std::to_string(length));
    if (Status s = out.Append(std::string_view(buffer.data(), got)); !s.ok()) return s;
    done += got;
  }
  if (Status s = out.Sync(); !s.ok()) return s;
  ++info->files_copied;
  info->bytes_copied += length;
  return Status::Ok();
}

// A hard link where the filesystem allows one, else a copy of the whole file.
Status LinkOrCopy(Env* env, const std::string& from, const std::string& to, SnapshotInfo* info) {
  uint64_t size = 0;
  if (const int error = env->FileSize(from, &size); error != 0) {
    return ErrnoStatus("stat " + from, error);
  }
  const int error = env->LinkFile(from, to);
  if (error == 0) {
    ++info->files_linked;
    info->bytes_linked += size;
    return Status::Ok();
  }
  // Another filesystem, or one without hard links (or out of them): the bytes themselves.
  if (error != EXDEV && error != EPERM && error != EMLINK && error != ENOTSUP) {
    return ErrnoStatus("link " + from + " to " + to, error);
  }
  return CopyPrefix(env, from, to, size, info);
}

std::string In(const std::string& directory, const std::string& name) {
  return (fs::path(directory) / name).string();
}

}  // namespace

Status DocStoreImpl::Snapshot(const std::string& directory, SnapshotInfo* info) {
  *info = {};
  std::error_code ec;
  if (directory.empty()) return Status::InvalidArgument("no snapshot folder given");
  if (fs::exists(directory, ec)) {
    return Status::InvalidArgument("snapshot folder " + directory + " exists already");
  }
  const std::string parent = fs::path(directory).parent_path().string();
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    return Status::InvalidArgument("snapshot folder " + directory + ": no folder " + parent);
  }
  const std::string building = directory + ".partial";
  fs::remove_all(building, ec);  // A snapshot a crash interrupted.
  if (ec) return ErrnoStatus("remove " + building, ec.value());
  if (const int error = env_->CreateDirectories(building); error != 0) {
    return ErrnoStatus("create " + building, error);
  }
  const auto fail = [&](Status s) {
    fs::remove_all(building, ec);
    return s;
  };

  Manifest manifest;
  LogPosition end;
  {
    // No write may come between the seal, the flush and the copy of the manifest: then every
    // entry before `end` is in an index the manifest lists, and no write-ahead log is needed.
    MutexLock write(&write_mu_);
    if (closed_) return fail(Status::InvalidArgument("the store is closed"));
    if (MemEntries() > 0) {
      if (Status s = WaitForBackground(options_.max_write_stall); !s.ok()) return fail(s);
      if (Status s = Freeze(); !s.ok()) return fail(s);  // Seals the open block too.
    } else if (Status s = segments_.Seal(); !s.ok()) {
      return fail(s);
    }
    if (Status s = WaitForBackground(options_.max_write_stall); !s.ok()) return fail(s);
    MutexLock change(&change_mu_);  // Compactions delete index files.
    manifest = manifest_;
    end = segments_.end();
    for (const ManifestIndex& index : manifest.indexes) {
      for (const char* suffix : {kIndexSuffix, kBloomSuffix}) {
        const std::string name = NumberedName(kIndexPrefix, index.number, suffix);
        if (Status s = LinkOrCopy(env_, In(directory_, name), In(building, name), info); !s.ok()) {
          return fail(s);
        }
      }
    }
    manifest.next_file = next_file_.load();
    manifest.wal_start = manifest.next_file;  // No log: everything is in the indexes.
    manifest.durable = end;
    info->position = segments_.end_position();
  }

  // Closed segments never change and are never deleted; the one being written never changes
  // before `end`. So these need no lock.
  std::vector<uint64_t> segments;
  if (Status s = ListNumbered(env_, directory_, kSegmentPrefix, kSegmentSuffix, &segments);
      !s.ok()) {
    return fail(s);
  }
  for (const uint64_t number : segments) {
    if (number > end.segment) continue;
    const std::string name = NumberedName(kSegmentPrefix, number, kSegmentSuffix);
    const Status s =
        number < end.segment
            ? LinkOrCopy(env_, In(directory_, name), In(building, name), info)
            : CopyPrefix(env_, In(directory_, name), In(building, name), end.offset, info);
    if (!s.ok()) return fail(s);
  }
  if (Status s = WriteFileAtomically(env_, In(building, kManifestName), EncodeManifest(manifest));
      !s.ok()) {
    return fail(s);
  }
  if (Status s = SyncDirectory(env_, building); !s.ok()) return fail(s);
  if (const int error = env_->Rename(building, directory); error != 0) {
    return fail(ErrnoStatus("rename " + building + " to " + directory, error));
  }
  return SyncDirectory(env_, parent.empty() ? "." : parent);
}

}  // namespace railyard::storage
