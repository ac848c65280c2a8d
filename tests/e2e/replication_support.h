// SPDX-License-Identifier: Apache-2.0
#pragma once

// Helpers for the replication end-to-end tests: an updater and its replicas as railyard-node
// processes in one temporary folder (token files, data dirs and logs side by side), clients pinned
// to one node, reads of many documents, and the comparison of two nodes' segment files.

#include <QString>
#include <QStringList>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/rpc/client.h"
#include "railyard/admin.pb.h"
#include "tests/e2e/node_process.h"
#include "tests/support/wait_until.h"

namespace railyard::e2e {

inline constexpr char kViewerToken[] = "viewer-secret";
inline constexpr char kOperatorToken[] = "operator-secret";
inline constexpr char kReplicationToken[] = "replication-secret";

// Polls `condition` every 50 ms (a poll here is often an RPC to a node process) until it holds or
// `timeout` passes; returns its last value. The default is generous for a loaded machine.
inline bool WaitFor(const std::function<bool()>& condition,
                    std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  return railyard::testing::WaitUntil(condition, timeout, std::chrono::milliseconds(50));
}

// Writes `text` to `path`, readable by its owner only (0600), as token files must be.
bool WritePrivateFile(const QString& path, const QByteArray& text);
// `viewer`, `operator` and `replication` token files in `dir`.
bool WriteTokenFiles(const QString& dir);

// A node named `name` of the cluster in `dir`: data in dir/name, log in dir/name.log.
NodeProcessOptions NodeOptions(const QString& dir, const QString& name,
                               const QStringList& extra_args);
// The flags of an updater that accepts dir/replication's token, and of its replica.
QStringList UpdaterArgs(const QString& dir);
QStringList ReplicaArgs(const QString& dir, const NodeProcess& updater);
// The node `name` of the cluster in `dir` (NodeOptions), started on ports the OS chooses; null,
// with the reason logged, if it did not come up.
std::unique_ptr<NodeProcess> StartNodeIn(const QString& dir, const QString& name,
                                         const QStringList& extra_args);
QString LogOf(const QString& dir, const QString& name);
QString DataDirOf(const QString& dir, const QString& name);

// The node's replication telemetry; a default one (state unspecified) if it did not answer.
admin::Replication ReplicationOf(const NodeProcess& node);
admin::Telemetry TelemetryOf(const NodeProcess& node);
// Waits (bounded by `timeout`) until every replica has applied the updater's head and
// `at_least` (a write's position: its block may not be sealed, so not in the head, yet). Empty
// when they have; else where each one is, with the threads of each one behind (by gdb).
QString WaitCaughtUp(const NodeProcess& updater, const std::vector<const NodeProcess*>& replicas,
                     uint64_t at_least,
                     std::chrono::milliseconds timeout = std::chrono::seconds(30));

// A started client whose pool holds connections to `node` alone; null if none came in 20 s.
std::unique_ptr<rpc::Client> ConnectTo(const NodeProcess& node, size_t pool_size = 2);

// doc.Get of `id` through `client`, within `timeout`.
rpc::CallResult Get(rpc::Client& client, uint64_t id, uint64_t min_position,
                    std::optional<std::string>* doc,
                    std::chrono::milliseconds timeout = std::chrono::milliseconds(3000));
// Puts through `client`, giving the position the updater acknowledged.
rpc::Status Put(rpc::Client& client, uint64_t id, const std::string& doc, uint64_t* position);
// Deletes through `client`, giving the position the updater acknowledged.
rpc::Status Delete(rpc::Client& client, uint64_t id, uint64_t* position);
// The documents among `ids` that `client`'s node holds (doc.BatchGet, 1000 ids a call); empty
// when it answered every one, else the error.
QString ReadDocs(rpc::Client& client, const std::vector<uint64_t>& ids,
                 std::map<uint64_t, std::string>* docs);
std::vector<uint64_t> IdRange(uint64_t first, uint64_t count);

// The whole text of a file (a node's log); empty if it cannot be read.
QString ReadText(const QString& path);

// Empty if the replica's segment files are the updater's, byte for byte, up to the replica's
// length: the same files, every one but the replica's last whole and identical, its last a prefix
// of the updater's same file. Else the first difference.
QString CompareSegments(const QString& updater_dir, const QString& replica_dir);
// The size of all segment files in `dir` together.
uint64_t SegmentBytes(const QString& dir);

}  // namespace railyard::e2e
