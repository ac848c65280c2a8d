// SPDX-License-Identifier: Apache-2.0
#include "tests/e2e/node_process.h"

#include <QProcess>
#include <QThread>

#include "core/cluster/admin_client.h"

namespace railyard::e2e {

NodeProcess::NodeProcess(NodeProcessOptions options) : options_(std::move(options)) {}

NodeProcess::~NodeProcess() { Kill(); }

bool NodeProcess::Start(uint16_t port, uint16_t admin_port, QString* error) {
  QStringList args = {"--name",
                      options_.name,
                      "--data-dir",
                      options_.data_dir,
                      "--listen",
                      QString("127.0.0.1:%1").arg(port),
                      "--admin-listen",
                      QString("127.0.0.1:%1").arg(admin_port),
                      "--memtable-entries",
                      QString::number(options_.memtable_entries),
                      "--viewer-token-file",
                      options_.token_dir + "/viewer",
                      "--operator-token-file",
                      options_.token_dir + "/operator",
                      "--grace-ms",
                      QString::number(options_.grace_ms)};
  args += options_.extra_args;
  std::vector<std::string> flags;
  for (const QString& a : args) flags.push_back(a.toStdString());
  process_.reset();
  const rpc::Status s = load::NodeProcess::Start(options_.binary.toStdString(), flags,
                                                 options_.log_path.toStdString(),
                                                 std::chrono::seconds(30), &process_);
  if (!s.ok()) {
    *error = options_.name + ": " + QString::fromStdString(s.message());
    return false;
  }
  service_ = process_->service();
  admin_ = process_->admin();
  return true;
}

bool NodeProcess::Restart(QString* error) {
  const uint16_t port = service_.port, admin_port = admin_.port;
  for (int attempt = 0; attempt < 10; ++attempt) {
    if (Start(port, admin_port, error)) return true;
    QThread::msleep(300);  // The old process's ports may take a moment to be released.
  }
  return false;
}

void NodeProcess::Kill() {
  if (process_) process_->Stop(std::chrono::milliseconds(0));
}

bool NodeProcess::Terminate(std::chrono::milliseconds timeout, int* exit_code) {
  if (!running()) return false;
  const load::NodeProcess::Exit exit = process_->Stop(timeout);
  *exit_code = exit.code;
  return exit.on_its_own && exit.code >= 0;
}

bool NodeProcess::Telemetry(const std::string& token, admin::Telemetry* telemetry) const {
  cluster::AdminClient client(admin_, token, "e2e-test");
  return client.Connect(std::chrono::seconds(2)).ok() && client.Telemetry(telemetry).ok();
}

int RunCtl(const QString& railyardctl, const QStringList& args, QString* out) {
  QProcess ctl;
  ctl.start(railyardctl, args);
  if (!ctl.waitForFinished(30000)) {
    ctl.kill();
    ctl.waitForFinished(5000);
    return -1;
  }
  if (out) *out = QString::fromUtf8(ctl.readAllStandardOutput() + ctl.readAllStandardError());
  return ctl.exitCode();
}

}  // namespace railyard::e2e
