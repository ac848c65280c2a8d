// SPDX-License-Identifier: Apache-2.0
#pragma once

// "Which nodes hold the newest copy of this document?": each node's admin.Locate answer compared
// with the others', in one place for railyardctl and the console (docs/figures.md, "Copies of a
// document").

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cluster/access.h"
#include "core/rpc/endpoint.h"
#include "core/rpc/status.h"
#include "core/rpc/tls.h"
#include "railyard/admin.pb.h"

namespace railyard::cluster {

// One node's answer: its location of the document, or why there is none.
struct NodeCopy {
  std::string node;
  rpc::Status status;  // Not OK: unreachable, refused, no store, still opening it.
  admin::DocLocation location;
};

enum class CopyVerdict {
  kNewest,   // Holds the newest entry any node reported (a document, or its deletion).
  kBehind,   // Has not applied the newest entry's position: holds an older entry, or none.
  kAbsent,   // No node holds any entry for the id.
  kDiffers,  // Has applied the newest position yet holds another entry: a fault to look into.
  kUnknown,  // Could not be asked (NodeCopy::status).
  kNoStore,  // A process without a docstore (a load client, a service of one's own).
};

struct CopyComparison {
  uint64_t newest_position = 0;       // 0: no node holds an entry.
  bool newest_deleted = false;        // The newest entry is a deletion.
  std::vector<CopyVerdict> verdicts;  // One per copy, in the order given.
};

// The newest entry is the one with the highest position. A copy at that position differs if its
// checksum or deletion does not match the newest; a node that has applied that position but
// holds no entry agrees only when the newest entry is a deletion (compactions drop tombstones).
CopyComparison CompareCopies(const std::vector<NodeCopy>& copies);

// One node to ask, with its own token and TLS (the console keeps one per node).
struct CopyTarget {
  std::string node;
  rpc::Endpoint admin;
  std::string token;
  std::optional<rpc::TlsClientOptions> tls;
};
std::vector<CopyTarget> CopyTargetsOf(const ClusterAccess& access);

// Asks every target for document `id` (admin.Locate, a viewer token will do), several at once,
// each within `timeout` to connect and answer; one copy per target, in their order. Blocks until
// every node answered or timed out. Answers are taken at slightly different moments: under
// writes, a node asked later may hold a newer entry.
std::vector<NodeCopy> LocateEverywhere(const std::vector<CopyTarget>& targets, uint64_t id,
                                       std::chrono::milliseconds timeout);

// "newest", "behind", "absent", "DIFFERS", "unknown", "no store".
std::string_view CopyVerdictName(CopyVerdict verdict);
// What answered on the node: "memory", "index 12, Bloom page 3 (resident)", "index 12, Bloom page
// 3 (not resident)", or "-" with no entry.
std::string AnsweredBy(const admin::DocLocation& location);
// "document", "deleted" or "none".
std::string_view EntryKindName(const admin::DocLocation& location);
// The checksum as 16 hex digits; "-" without a live document.
std::string ChecksumText(const admin::DocLocation& location);

}  // namespace railyard::cluster
