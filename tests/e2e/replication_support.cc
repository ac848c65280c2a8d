// SPDX-License-Identifier: Apache-2.0
#include "tests/e2e/replication_support.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QThread>

#include "railyard/docservice.pb.h"
#include "tests/support/run_program.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

namespace railyard::e2e {

bool WritePrivateFile(const QString& path, const QByteArray& text) {
  QFile out(path);
  if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  out.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
  return out.write(text) == text.size();
}

bool WriteTokenFiles(const QString& dir) {
  return WritePrivateFile(dir + "/viewer", QByteArray(kViewerToken) + "\n") &&
         WritePrivateFile(dir + "/operator", QByteArray(kOperatorToken) + "\n") &&
         WritePrivateFile(dir + "/replication", QByteArray(kReplicationToken) + "\n");
}

QString LogOf(const QString& dir, const QString& name) { return dir + "/" + name + ".log"; }
QString DataDirOf(const QString& dir, const QString& name) { return dir + "/" + name; }

NodeProcessOptions NodeOptions(const QString& dir, const QString& name,
                               const QStringList& extra_args) {
  NodeProcessOptions options;
  options.binary = BuiltProgram("railyard-node");
  options.name = name;
  options.data_dir = DataDirOf(dir, name);
  options.token_dir = dir;
  options.log_path = LogOf(dir, name);
  options.extra_args = extra_args;
  return options;
}

std::unique_ptr<NodeProcess> StartNodeIn(const QString& dir, const QString& name,
                                         const QStringList& extra_args) {
  auto node = std::make_unique<NodeProcess>(NodeOptions(dir, name, extra_args));
  QString error;
  if (!node->Start(0, 0, &error)) {
    qWarning("%s: %s", qPrintable(name), qPrintable(error));
    return nullptr;
  }
  return node;
}

QStringList UpdaterArgs(const QString& dir) {
  return {"--replication-token-file", dir + "/replication"};
}

QStringList ReplicaArgs(const QString& dir, const NodeProcess& updater) {
  return {"--role",
          "replica",
          "--follow",
          updater.service_address(),
          "--replication-token-file",
          dir + "/replication"};
}

admin::Telemetry TelemetryOf(const NodeProcess& node) {
  admin::Telemetry telemetry;
  if (!node.Telemetry(kViewerToken, &telemetry)) return admin::Telemetry();
  return telemetry;
}

admin::Replication ReplicationOf(const NodeProcess& node) {
  return TelemetryOf(node).replication();
}

namespace {

// Each thread's innermost frames in process `pid`, by gdb (attached in batch mode, then
// detached): what a replica that stopped applying is waiting for.
QString ThreadStacks(int64_t pid) {
  const QString gdb = QStandardPaths::findExecutable("gdb");
  if (gdb.isEmpty()) return "(no gdb on PATH: no stacks)";
  const testing::ProgramResult r = testing::RunProgram(
      gdb, {"-nx", "-batch", "-p", QString::number(pid), "-ex", "thread apply all bt 8"}, 30000);
  QStringList frames;
  for (const QString& line : r.out.split('\n')) {
    if (line.startsWith("Thread ") || line.startsWith("#")) frames << line;
  }
  if (frames.isEmpty()) return "(gdb gave no stacks: " + r.err.left(300) + ")";
  return frames.join('\n');
}

}  // namespace

QString WaitCaughtUp(const NodeProcess& updater, const std::vector<const NodeProcess*>& replicas,
                     uint64_t at_least, std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  uint64_t head = 0;
  QString where;
  std::vector<const NodeProcess*> behind;
  while (true) {
    head = std::max(at_least, ReplicationOf(updater).head_position());
    where.clear();
    behind.clear();
    for (const NodeProcess* replica : replicas) {
      const admin::Telemetry t = TelemetryOf(*replica);
      const admin::Replication& r = t.replication();
      if (r.applied_position() < head) {
        behind.push_back(replica);
        // With its store's write stalls and flushes: a replica that stops applying may be
        // waiting for its in-memory index to be written.
        where += QString("%1 at %2 (%3, '%4'; memtable %5/%6, %7 write stalls, %8 flushes); ")
                     .arg(replica->name())
                     .arg(r.applied_position())
                     .arg(admin::ReplicaState_Name(r.state()).c_str())
                     .arg(QString::fromStdString(r.last_error()))
                     .arg(t.storage().memtable_entries())
                     .arg(t.storage().memtable_capacity())
                     .arg(t.storage().write_stalls())
                     .arg(t.storage().flushes());
      }
    }
    if (head == 0) where = "the updater did not answer";
    if (where.isEmpty() || std::chrono::steady_clock::now() > until) break;
    QThread::msleep(20);
  }
  if (where.isEmpty()) return where;
  where = QString("updater's head %1: ").arg(head) + where;
  for (const NodeProcess* replica : behind) {
    where += QString("\n%1's threads:\n").arg(replica->name()) + ThreadStacks(replica->pid());
  }
  return where;
}

std::unique_ptr<rpc::Client> ConnectTo(const NodeProcess& node, size_t pool_size) {
  rpc::ClientOptions options;
  options.servers = {node.service()};
  options.pool_size = pool_size;
  options.acquirer_sleep_min = std::chrono::milliseconds(1);
  options.acquirer_sleep_max = std::chrono::milliseconds(5);
  options.connect_timeout = std::chrono::milliseconds(500);
  options.client_name = "e2e-test";
  auto client = std::make_unique<rpc::Client>(std::move(options));
  if (!client->Start().ok() || !client->WaitForPool(pool_size, std::chrono::seconds(20))) {
    return nullptr;
  }
  return client;
}

rpc::CallResult Get(rpc::Client& client, uint64_t id, uint64_t min_position,
                    std::optional<std::string>* doc, std::chrono::milliseconds timeout) {
  doc::GetRequest request;
  request.set_id(id);
  request.set_min_position(min_position);
  rpc::CallResult result = client.Call("doc.Get", request.SerializeAsString(), timeout);
  doc->reset();
  doc::GetResponse response;
  if (result.status.ok() && response.ParseFromString(result.payload)) *doc = response.doc();
  return result;
}

rpc::Status Put(rpc::Client& client, uint64_t id, const std::string& doc, uint64_t* position) {
  doc::PutRequest request;
  request.set_id(id);
  request.set_doc(doc);
  const rpc::CallResult result =
      client.Call("doc.Put", request.SerializeAsString(), std::chrono::milliseconds(3000));
  doc::PutResponse response;
  if (result.status.ok() && position && response.ParseFromString(result.payload)) {
    *position = response.position();
  }
  return result.status;
}

rpc::Status Delete(rpc::Client& client, uint64_t id, uint64_t* position) {
  doc::DeleteRequest request;
  request.set_id(id);
  const rpc::CallResult result =
      client.Call("doc.Delete", request.SerializeAsString(), std::chrono::milliseconds(3000));
  doc::DeleteResponse response;
  if (result.status.ok() && position && response.ParseFromString(result.payload)) {
    *position = response.position();
  }
  return result.status;
}

QString ReadDocs(rpc::Client& client, const std::vector<uint64_t>& ids,
                 std::map<uint64_t, std::string>* docs) {
  constexpr size_t kPerCall = 1000;
  for (size_t at = 0; at < ids.size(); at += kPerCall) {
    doc::BatchGetRequest request;
    for (size_t i = at; i < std::min(ids.size(), at + kPerCall); ++i) request.add_ids(ids[i]);
    const rpc::CallResult result =
        client.Call("doc.BatchGet", request.SerializeAsString(), std::chrono::seconds(10));
    doc::BatchGetResponse response;
    if (!result.status.ok()) return QString::fromStdString(result.status.ToString());
    if (!response.ParseFromString(result.payload)) return "a malformed doc.BatchGet answer";
    for (const doc::BatchGetResponse::Item& item : response.items()) {
      if (!item.error().empty()) {
        return QString("id %1: %2").arg(item.id()).arg(QString::fromStdString(item.error()));
      }
      if (item.found()) (*docs)[item.id()] = item.doc();
    }
  }
  return {};
}

std::vector<uint64_t> IdRange(uint64_t first, uint64_t count) {
  std::vector<uint64_t> ids(count);
  for (uint64_t i = 0; i < count; ++i) ids[i] = first + i;
  return ids;
}

QString ReadText(const QString& path) {
  QFile in(path);
  if (!in.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(in.readAll());
}

namespace {

QStringList SegmentFiles(const QString& dir) {
  return QDir(dir).entryList({"segment-*.seg"}, QDir::Files, QDir::Name);
}

}  // namespace

QString CompareSegments(const QString& updater_dir, const QString& replica_dir) {
  const QStringList updater = SegmentFiles(updater_dir), replica = SegmentFiles(replica_dir);
  if (replica.isEmpty()) return "the replica has no segment file";
  for (qsizetype i = 0; i < replica.size(); ++i) {
    if (i >= updater.size() || updater[i] != replica[i]) {
      return QString("the replica's %1 is not the updater's (%2)")
          .arg(replica[i], updater.join(' '));
    }
    QFile a(updater_dir + "/" + updater[i]), b(replica_dir + "/" + replica[i]);
    if (!a.open(QIODevice::ReadOnly) || !b.open(QIODevice::ReadOnly)) {
      return "cannot read " + replica[i];
    }
    const QByteArray ours = a.readAll(), theirs = b.readAll();
    const bool last = i == replica.size() - 1;
    if (!last && ours.size() != theirs.size()) {
      return QString("closed %1: the updater's has %2 bytes, the replica's %3")
          .arg(replica[i])
          .arg(ours.size())
          .arg(theirs.size());
    }
    if (theirs.size() > ours.size()) {
      return QString("%1: the replica's is longer (%2 > %3 bytes)")
          .arg(replica[i])
          .arg(theirs.size())
          .arg(ours.size());
    }
    if (ours.left(theirs.size()) != theirs) {
      qsizetype at = 0;
      while (ours[at] == theirs[at]) ++at;
      return QString("%1 differs at byte %2").arg(replica[i]).arg(at);
    }
  }
  return {};
}

uint64_t SegmentBytes(const QString& dir) {
  uint64_t bytes = 0;
  for (const QString& name : SegmentFiles(dir)) bytes += QFileInfo(dir + "/" + name).size();
  return bytes;
}

}  // namespace railyard::e2e
