// SPDX-License-Identifier: Apache-2.0
#pragma once

// A railyard-node child process for end-to-end tests: started on loopback (ports chosen by the OS
// or given, for a restart in place), stopped with SIGKILL or SIGTERM, its admin telemetry read.
// The process itself is core/load's NodeProcess, the one the demo cluster runs.

#include <QString>
#include <QStringList>
#include <chrono>
#include <cstdint>
#include <memory>

#include "core/load/node_process.h"
#include "core/rpc/endpoint.h"
#include "railyard/admin.pb.h"

namespace railyard::e2e {

struct NodeProcessOptions {
  QString binary;     // Path of railyard-node.
  QString name;       // --name
  QString data_dir;   // --data-dir
  QString token_dir;  // Holds the files `viewer` and `operator`, one token each.
  QString log_path;   // The node's stderr (its log) is appended here.
  int memtable_entries = 200;
  int grace_ms = 2000;  // Lame-duck grace on SIGTERM.
  // Appended to the command line: role, follow, sync, test faults...
  QStringList extra_args = {};
};

// Runs `railyardctl` with `args` and waits up to 30 s; returns its exit code (-1 if it had to be
// killed), with its stdout and stderr in `*out` if given.
int RunCtl(const QString& railyardctl, const QStringList& args, QString* out = nullptr);

// Not thread-safe: one controlling thread. The destructor SIGKILLs the node if it still runs, so
// a failing test never leaves one behind.
class NodeProcess {
 public:
  explicit NodeProcess(NodeProcessOptions options);
  ~NodeProcess();
  NodeProcess(const NodeProcess&) = delete;
  NodeProcess& operator=(const NodeProcess&) = delete;

  // Starts on 127.0.0.1 with the given ports (0: any) and reads back the addresses the node prints
  // ("LISTEN <service> ADMIN <admin>"); false with `error` set if it does not come up in 30 s
  // (generous: a loaded machine, a store to replay).
  bool Start(uint16_t port, uint16_t admin_port, QString* error);
  // Starts again on the ports it had; retries a few times while the old ports are released.
  bool Restart(QString* error);
  // SIGKILL, and waits (bounded) until it is gone.
  void Kill();
  // SIGTERM, and waits up to `timeout`; true if it exited on its own with `*exit_code`.
  bool Terminate(std::chrono::milliseconds timeout, int* exit_code);

  bool running() const { return process_ && process_->Running(); }
  int64_t pid() const { return process_ ? process_->pid() : -1; }
  const QString& name() const { return options_.name; }
  const rpc::Endpoint& service() const { return service_; }
  const rpc::Endpoint& admin() const { return admin_; }
  QString service_address() const { return QString::fromStdString(service_.ToString()); }
  QString admin_address() const { return QString::fromStdString(admin_.ToString()); }

  // One telemetry snapshot through a fresh admin connection; false if it could not be had in 2 s.
  bool Telemetry(const std::string& token, admin::Telemetry* telemetry) const;

 private:
  const NodeProcessOptions options_;
  std::unique_ptr<load::NodeProcess> process_;
  rpc::Endpoint service_, admin_;
};

}  // namespace railyard::e2e
