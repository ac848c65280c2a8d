// SPDX-License-Identifier: Apache-2.0
#pragma once

// Runs a program to its end for a test, bounded in time: its exit code and both outputs.
// Header-only; needs only QtCore.

#include <QProcess>
#include <QString>
#include <QStringList>

namespace railyard::testing {

struct ProgramResult {
  int code = -1;  // -1: it crashed, or did not end within the time given (then it is killed).
  QString out, err;
};

inline ProgramResult RunProgram(const QString& program, const QStringList& args,
                                int timeout_ms = 20000) {
  QProcess process;
  process.start(program, args);
  ProgramResult r;
  if (!process.waitForFinished(timeout_ms)) {
    process.kill();  // SIGKILL to the child's own PID.
    process.waitForFinished(5000);
    return r;
  }
  r.code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
  r.out = QString::fromUtf8(process.readAllStandardOutput());
  r.err = QString::fromUtf8(process.readAllStandardError());
  return r;
}

}  // namespace railyard::testing
