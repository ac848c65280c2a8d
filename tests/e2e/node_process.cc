#include "tests/e2e/node_process.h"

#include <QThread>

#include "core/cluster/admin_client.h"

namespace railyard::e2e {

NodeProcess::NodeProcess(NodeProcessOptions options) : options_(std::move(options)) {}

NodeProcess::~NodeProcess() { Kill(); }

bool NodeProcess::Start(uint16_t port, uint16_t admin_port, QString* error) {
  process_.setStandardErrorFile(options_.log_path, QIODevice::Append);
  process_.start(
      options_.binary,
      {"--name", options_.name, "--data-dir", options_.data_dir, "--listen",
       QString("127.0.0.1:%1").arg(port), "--admin-listen", QString("127.0.0.1:%1").arg(admin_port),
       "--memtable-entries", QString::number(options_.memtable_entries), "--viewer-token-file",
       options_.token_dir + "/viewer", "--operator-token-file", options_.token_dir + "/operator",
       "--grace-ms", QString::number(options_.grace_ms)});
  if (!process_.waitForStarted(5000)) {
    *error = options_.name + ": " + process_.errorString();
    return false;
  }
  QByteArray out;
  for (int i = 0; i < 100 && !out.contains('\n') && running(); ++i) {
    process_.waitForReadyRead(100);
    out += process_.readAllStandardOutput();
  }
  const QList<QByteArray> words = out.trimmed().split(' ');
  const auto service = words.size() == 4 ? rpc::ParseEndpoint(words[1].toStdString())
                                         : std::optional<rpc::Endpoint>();
  const auto admin = words.size() == 4 ? rpc::ParseEndpoint(words[3].toStdString())
                                       : std::optional<rpc::Endpoint>();
  if (words.size() != 4 || words[0] != "LISTEN" || !service || !admin) {
    *error = options_.name + " did not print its addresses (see " + options_.log_path +
             "); it printed: " + QString::fromUtf8(out);
    Kill();
    return false;
  }
  service_ = *service;
  admin_ = *admin;
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
  if (process_.state() == QProcess::NotRunning) return;
  process_.kill();
  process_.waitForFinished(5000);
}

bool NodeProcess::Terminate(std::chrono::milliseconds timeout, int* exit_code) {
  if (process_.state() == QProcess::NotRunning) return false;
  process_.terminate();
  if (!process_.waitForFinished(static_cast<int>(timeout.count()))) {
    Kill();
    return false;
  }
  *exit_code = process_.exitCode();
  return process_.exitStatus() == QProcess::NormalExit;
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
