// SPDX-License-Identifier: Apache-2.0
#include "tests/e2e/versioned_writer.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <random>

#include "railyard/docservice.pb.h"

namespace railyard::e2e {

namespace {

constexpr std::chrono::milliseconds kCallTimeout{3000};

// The version a VersionedDoc of `id` carries; nullopt if `doc` is not one of `id`'s.
std::optional<uint64_t> VersionOf(uint64_t id, const std::string& doc) {
  uint64_t doc_id = 0, version = 0;
  if (std::sscanf(doc.c_str(), "id=%" SCNu64 " v=%" SCNu64, &doc_id, &version) != 2 ||
      doc_id != id) {
    return std::nullopt;
  }
  return version;
}

}  // namespace

std::string VersionedDoc(uint64_t id, uint64_t version, size_t size) {
  std::string doc = "id=" + std::to_string(id) + " v=" + std::to_string(version) + " ";
  // Padding that depends on both, so a torn or misplaced copy cannot pass for this one.
  for (size_t i = 0; doc.size() < size; ++i)
    doc.push_back(static_cast<char>('a' + (id + version + i) % 26));
  return doc;
}

VersionedWriter::VersionedWriter(rpc::Client& updater, uint64_t keys, double delete_fraction,
                                 uint64_t seed)
    : updater_(updater), keys_(keys), delete_fraction_(delete_fraction), seed_(seed) {}

VersionedWriter::~VersionedWriter() { Stop(); }

void VersionedWriter::Start() {
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void VersionedWriter::Stop() {
  stop_ = true;
  Resume();
  if (thread_.joinable()) thread_.join();
}

void VersionedWriter::Pause() {
  std::unique_lock lock(mu_);
  pause_requested_ = true;
  paused_cv_.wait_for(lock, std::chrono::seconds(10),
                      [this] { return paused_ || !thread_.joinable(); });
}

void VersionedWriter::Resume() {
  std::lock_guard lock(mu_);
  pause_requested_ = false;
  paused_cv_.notify_all();
}

void VersionedWriter::Run() {
  std::mt19937_64 rng(seed_);
  std::uniform_int_distribution<uint64_t> key(0, keys_ - 1);
  std::bernoulli_distribution remove(delete_fraction_);
  while (!stop_.load()) {
    Issued change{};
    const uint64_t id = key(rng);
    {
      std::unique_lock lock(mu_);
      if (pause_requested_) {
        paused_ = true;
        paused_cv_.notify_all();
        paused_cv_.wait(lock, [this] { return !pause_requested_; });
        paused_ = false;
        continue;
      }
      // A key's first change is a put, so deletes mostly hit documents that exist.
      change = {next_version_++, issued_.count(id) > 0 && remove(rng)};
      issued_[id].push_back(change);
    }
    rpc::CallResult result;
    if (change.deleted) {
      doc::DeleteRequest request;
      request.set_id(id);
      result = updater_.Call("doc.Delete", request.SerializeAsString(), kCallTimeout);
    } else {
      doc::PutRequest request;
      request.set_id(id);
      request.set_doc(VersionedDoc(id, change.version));
      result = updater_.Call("doc.Put", request.SerializeAsString(), kCallTimeout);
    }
    // Both answers carry the position in field 1.
    doc::PutResponse response;
    const bool ok = result.status.ok() && response.ParseFromString(result.payload);
    {
      std::lock_guard lock(mu_);
      last_failed_[id] = !ok;
      if (ok) last_acknowledged_[id] = {change.version, response.position(), change.deleted};
    }
    if (ok) {
      ++acknowledged_;
      max_position_ = std::max(max_position_.load(), response.position());
    } else {
      ++failed_;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // The updater may be down.
    }
  }
  std::lock_guard lock(mu_);
  paused_cv_.notify_all();
}

std::optional<VersionedWriter::Change> VersionedWriter::LastAcknowledged(uint64_t id) const {
  std::lock_guard lock(mu_);
  const auto it = last_acknowledged_.find(id);
  if (it == last_acknowledged_.end()) return std::nullopt;
  return it->second;
}

std::string VersionedWriter::CheckRead(uint64_t id, const std::optional<Change>& before,
                                       const std::optional<std::string>& doc) const {
  std::lock_guard lock(mu_);
  const auto history = issued_.find(id);
  const std::string key = "key " + std::to_string(id);
  const std::string acked = before ? std::string(before->deleted ? "a delete" : "a put") +
                                         " of version " + std::to_string(before->version)
                                   : std::string("nothing");
  if (!doc) {
    if (!before || before->deleted) return {};
    // NOT_FOUND after an acknowledged put is fine only if a newer delete was issued since.
    if (history != issued_.end()) {
      for (const Issued& change : history->second) {
        if (change.deleted && change.version > before->version) return {};
      }
    }
    return key + ": NOT_FOUND after " + acked + " was acknowledged";
  }
  const std::optional<uint64_t> version = VersionOf(id, *doc);
  if (!version || *doc != VersionedDoc(id, *version)) {
    return key + ": a document that was never written: '" + doc->substr(0, 60) + "'";
  }
  bool issued = false;
  if (history != issued_.end()) {
    for (const Issued& change : history->second) {
      issued = issued || (!change.deleted && change.version == *version);
    }
  }
  if (!issued) return key + ": version " + std::to_string(*version) + " was never put";
  if (before && (*version < before->version || (before->deleted && *version == before->version))) {
    return key + ": read version " + std::to_string(*version) + " after " + acked +
           " was acknowledged";
  }
  return {};
}

std::string VersionedWriter::CheckFinal(uint64_t id, const std::optional<std::string>& doc) const {
  const std::optional<Change> last = LastAcknowledged(id);
  bool last_failed = false;
  {
    std::lock_guard lock(mu_);
    const auto it = last_failed_.find(id);
    last_failed = it != last_failed_.end() && it->second;
  }
  if (last_failed) return CheckRead(id, last, doc);
  const std::string key = "key " + std::to_string(id);
  if (!last) return doc ? key + ": never written, yet found" : std::string();
  if (last->deleted) {
    return doc ? key + ": deleted (version " + std::to_string(last->version) + "), yet found" : "";
  }
  if (!doc) return key + ": NOT_FOUND, expected version " + std::to_string(last->version);
  if (*doc != VersionedDoc(id, last->version)) {
    return key + ": '" + doc->substr(0, 40) + "', expected version " +
           std::to_string(last->version);
  }
  return {};
}

void ReadAndCheck(rpc::Client& client, const VersionedWriter& writer, bool with_positions,
                  const std::atomic<bool>& stop, uint64_t seed, ReadTally* tally,
                  uint64_t max_reads) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<uint64_t> key(0, writer.keys() - 1);
  const auto note = [tally](std::string problem) {
    if (tally->first_problems.size() < 5) tally->first_problems.push_back(std::move(problem));
  };
  while (!stop.load() && tally->reads < max_reads) {
    const uint64_t id = key(rng);
    const std::optional<VersionedWriter::Change> before = writer.LastAcknowledged(id);
    doc::GetRequest request;
    request.set_id(id);
    if (with_positions && before) request.set_min_position(before->position);
    const rpc::CallResult result =
        client.Call("doc.Get", request.SerializeAsString(), kCallTimeout);
    ++tally->reads;
    std::optional<std::string> doc;
    doc::GetResponse response;
    if (result.status.code() == rpc::Code::kBehind) {
      ++tally->behind;
      continue;
    }
    if (result.status.ok() && response.ParseFromString(result.payload)) {
      doc = response.doc();
      ++tally->found;
      tally->found_so_far.store(tally->found, std::memory_order_relaxed);
    } else if (result.status.code() != rpc::Code::kNotFound) {
      ++tally->errors;
      note("read of key " + std::to_string(id) + ": " + result.status.ToString());
      continue;
    }
    if (std::string why = writer.CheckRead(id, before, doc); !why.empty()) {
      ++tally->violations;
      note(why + (request.min_position()
                      ? " (min_position " + std::to_string(request.min_position()) + ")"
                      : std::string()));
    }
  }
}

}  // namespace railyard::e2e
