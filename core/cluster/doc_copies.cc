// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/doc_copies.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <thread>

#include "core/cluster/admin_client.h"
#include "core/cluster/admin_methods.h"

namespace railyard::cluster {

namespace {

bool HoldsEntry(const admin::DocLocation& l) {
  return l.source() != admin::DocLocation::SOURCE_NONE;
}

}  // namespace

CopyComparison CompareCopies(const std::vector<NodeCopy>& copies) {
  CopyComparison result;
  const admin::DocLocation* newest = nullptr;
  for (const NodeCopy& copy : copies) {
    if (!copy.status.ok() || !HoldsEntry(copy.location)) continue;
    // Ties: the updater's copy is the reference; else the first.
    if (!newest || copy.location.position() > newest->position() ||
        (copy.location.position() == newest->position() &&
         copy.location.role() == admin::DOCSTORE_UPDATER &&
         newest->role() != admin::DOCSTORE_UPDATER)) {
      newest = &copy.location;
    }
  }
  if (newest) {
    result.newest_position = newest->position();
    result.newest_deleted = newest->deleted();
  }
  result.verdicts.reserve(copies.size());
  for (const NodeCopy& copy : copies) {
    const admin::DocLocation& l = copy.location;
    CopyVerdict verdict;
    if (!copy.status.ok()) {
      const bool no_store =
          copy.status.code() == rpc::Code::kFailedPrecondition &&
          copy.status.message().find(admin_methods::kNoDocumentStore) != std::string::npos;
      verdict = no_store ? CopyVerdict::kNoStore : CopyVerdict::kUnknown;
    } else if (!newest) {
      verdict = CopyVerdict::kAbsent;
    } else if (HoldsEntry(l) && l.position() == newest->position()) {
      // The same entry, or a fault. (The updater's write in its still open block is past its own
      // applied position: it holds it before any replica can.)
      const bool same = l.deleted() == newest->deleted() && l.checksum() == newest->checksum() &&
                        l.size_bytes() == newest->size_bytes();
      verdict = same ? CopyVerdict::kNewest : CopyVerdict::kDiffers;
    } else if (l.applied_position() < newest->position()) {
      verdict = CopyVerdict::kBehind;
    } else if (!HoldsEntry(l)) {
      verdict = newest->deleted() ? CopyVerdict::kNewest : CopyVerdict::kDiffers;
    } else {
      verdict = CopyVerdict::kDiffers;  // Applied the newest position, holds an older entry.
    }
    result.verdicts.push_back(verdict);
  }
  return result;
}

std::vector<CopyTarget> CopyTargetsOf(const ClusterAccess& access) {
  std::vector<CopyTarget> targets;
  for (const NodeTarget& node : access.nodes) {
    targets.push_back({node.name, node.admin, access.token, access.tls});
  }
  return targets;
}

std::vector<NodeCopy> LocateEverywhere(const std::vector<CopyTarget>& targets, uint64_t id,
                                       std::chrono::milliseconds timeout) {
  std::vector<NodeCopy> copies(targets.size());
  // In waves of a bounded size: an unreachable node costs one timeout per wave, not one each.
  constexpr size_t kAtOnce = 16;
  for (size_t first = 0; first < copies.size(); first += kAtOnce) {
    std::vector<std::thread> askers;
    for (size_t i = first; i < std::min(copies.size(), first + kAtOnce); ++i) {
      askers.emplace_back([&targets, &copies, i, id, timeout] {
        const CopyTarget& target = targets[i];
        NodeCopy& copy = copies[i];
        copy.node = target.node;
        AdminClient client(target.admin, target.token, "railyard-locate", target.tls);
        copy.status = client.Connect(timeout);
        if (copy.status.ok()) copy.status = client.Locate(id, &copy.location);
      });
    }
    for (std::thread& asker : askers) asker.join();
  }
  return copies;
}

std::string_view CopyVerdictName(CopyVerdict verdict) {
  switch (verdict) {
    case CopyVerdict::kNewest:
      return "newest";
    case CopyVerdict::kBehind:
      return "behind";
    case CopyVerdict::kAbsent:
      return "absent";
    case CopyVerdict::kDiffers:
      return "DIFFERS";
    case CopyVerdict::kNoStore:
      return "no store";
    case CopyVerdict::kUnknown:
      break;
  }
  return "unknown";
}

std::string AnsweredBy(const admin::DocLocation& location) {
  switch (location.source()) {
    case admin::DocLocation::SOURCE_MEMTABLE:
      return "memory";
    case admin::DocLocation::SOURCE_INDEX:
      return "index " + std::to_string(location.index()) + ", Bloom page " +
             std::to_string(location.bloom_page()) +
             (location.bloom_page_resident() ? " (resident)" : " (not resident)");
    default:
      return "-";
  }
}

std::string_view EntryKindName(const admin::DocLocation& location) {
  if (!HoldsEntry(location)) return "none";
  return location.deleted() ? "deleted" : "document";
}

std::string ChecksumText(const admin::DocLocation& location) {
  if (!HoldsEntry(location) || location.deleted()) return "-";
  char text[17];
  std::snprintf(text, sizeof(text), "%016" PRIx64, location.checksum());
  return text;
}

}  // namespace railyard::cluster
