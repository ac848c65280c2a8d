// SPDX-License-Identifier: Apache-2.0
#pragma once

// An rpc_test_server child process (tests/rpc/rpc_test_server_main.cc), for tests that need a
// server they can SIGKILL, SIGSTOP or SIGTERM. The test target depends on rpc_test_server, which
// lands beside it in bin/.

#include <QProcess>
#include <QString>
#include <csignal>
#include <cstdint>

#include "core/rpc/endpoint.h"
#include "tests/support/test_paths.h"

namespace railyard::rpc::testing {

// Started in the constructor (port() is 0 if it did not start and say its port within 20 s);
// stopped by its PID on destruction if still running: woken first (SIGCONT) in case a test
// stopped it, then SIGKILLed.
class ServerProcess {
 public:
  explicit ServerProcess(const QString& name, int service_us = 0, int grace_ms = 2000) {
    process_.start(::railyard::testing::BuiltProgram("rpc_test_server"),
                   {"--name", name, "--service-us", QString::number(service_us), "--grace-ms",
                    QString::number(grace_ms)});
    if (!process_.waitForStarted(5000)) return;
    QByteArray out;
    for (int i = 0; i < 200 && !out.contains('\n'); ++i) {  // At most 20 s, for a loaded machine.
      process_.waitForReadyRead(100);
      out += process_.readAllStandardOutput();
    }
    const qsizetype at = out.indexOf("PORT ");
    if (at >= 0) port_ = static_cast<uint16_t>(out.mid(at + 5).split('\n').front().toUInt());
  }
  ~ServerProcess() {
    if (process_.state() == QProcess::NotRunning) return;
    ::kill(static_cast<pid_t>(process_.processId()), SIGCONT);
    process_.kill();
    process_.waitForFinished(5000);
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  uint16_t port() const { return port_; }
  Endpoint endpoint() const { return {"127.0.0.1", port_}; }
  pid_t pid() const { return static_cast<pid_t>(process_.processId()); }
  QProcess& process() { return process_; }

 private:
  QProcess process_;
  uint16_t port_ = 0;
};

}  // namespace railyard::rpc::testing
