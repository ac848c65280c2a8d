// SPDX-License-Identifier: Apache-2.0
#pragma once

// `railyardctl load` as a child process with its telemetry served on an OS-chosen port
// (--admin-listen 127.0.0.1:0), for the tests that watch a load client: its admin address is read
// from the line it prints once the service listens. Stopped by its PID when the object goes.
// Header-only; Qt Core. Thread safety: one thread.

#include <signal.h>

#include <QProcess>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QtGlobal>

#include "tests/support/test_paths.h"

namespace railyard::testing {

class LoadProcess {
 public:
  LoadProcess() = default;
  LoadProcess(const LoadProcess&) = delete;
  LoadProcess& operator=(const LoadProcess&) = delete;
  ~LoadProcess() { Kill(); }

  // Starts `railyardctl load` with `flags` for at most `duration_s`, and waits up to 30 s for its
  // telemetry address. False (with what it printed as a warning) if it never said one.
  bool Start(const QStringList& flags, int duration_s = 600) {
    process_.start(BuiltProgram("railyardctl"),
                   QStringList{"load", "--duration-s", QString::number(duration_s),
                               "--admin-listen", "127.0.0.1:0"} +
                       flags);
    if (!process_.waitForStarted(10000)) return false;
    const QRegularExpression said(R"(load: telemetry on (127\.0\.0\.1:(\d+)))");
    QString err;
    for (int i = 0; i < 300 && admin_.isEmpty(); ++i) {
      process_.waitForReadyRead(100);
      err += QString::fromUtf8(process_.readAllStandardError());
      if (const QRegularExpressionMatch m = said.match(err); m.hasMatch()) {
        admin_ = m.captured(1);
        port_ = static_cast<uint16_t>(m.captured(2).toUInt());
      }
      if (process_.state() != QProcess::Running) break;
    }
    if (admin_.isEmpty()) qWarning("railyardctl load said: %s", qPrintable(err));
    return !admin_.isEmpty();
  }
  // SIGTERM: the load stops and reports; SIGKILL if it has not within 15 s.
  void Stop() {
    if (process_.state() == QProcess::NotRunning) return;
    process_.terminate();
    if (!process_.waitForFinished(15000)) Kill();
  }
  // SIGKILL, as a crash would end it.
  void Kill() {
    if (process_.state() == QProcess::NotRunning) return;
    ::kill(static_cast<pid_t>(process_.processId()), SIGKILL);
    process_.waitForFinished(10000);
  }
  // "127.0.0.1:PORT" once Start succeeded.
  const QString& admin() const { return admin_; }
  uint16_t admin_port() const { return port_; }

 private:
  QProcess process_;
  QString admin_;
  uint16_t port_ = 0;
};

}  // namespace railyard::testing
