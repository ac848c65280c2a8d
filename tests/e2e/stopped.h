// SPDX-License-Identifier: Apache-2.0
#pragma once

// SIGSTOP for a drill: a process stopped for the guard's lifetime, as a hung node is.

#include <sys/types.h>

#include <QElapsedTimer>
#include <QFile>
#include <QThread>
#include <csignal>
#include <cstdint>

namespace railyard::e2e {

// SIGSTOPs a process and waits (up to 10 s) until the kernel reports it stopped ('T' in
// /proc/PID/stat: a reply already being written when the signal came may still go out before
// that); SIGCONT on Resume or destruction, so a failed check never leaves a process stopped for
// the next one. Not thread-safe: one controlling thread.
class Stopped {
 public:
  explicit Stopped(int64_t pid) : pid_(static_cast<pid_t>(pid)) {
    if (::kill(pid_, SIGSTOP) != 0) return;
    QElapsedTimer waited;
    waited.start();
    while (State() != 'T' && waited.elapsed() < 10000) QThread::msleep(20);
    ok_ = State() == 'T';
  }
  ~Stopped() { Resume(); }
  Stopped(const Stopped&) = delete;
  Stopped& operator=(const Stopped&) = delete;

  bool ok() const { return ok_; }
  void Resume() {
    if (pid_ > 0) ::kill(pid_, SIGCONT);
    pid_ = -1;
  }

 private:
  char State() const {
    QFile stat(QString("/proc/%1/stat").arg(pid_));
    if (!stat.open(QIODevice::ReadOnly)) return '?';
    const QByteArray text = stat.readAll();
    const qsizetype paren = text.lastIndexOf(')');  // The name may hold spaces.
    return paren >= 0 && paren + 2 < text.size() ? text[paren + 2] : '?';
  }

  pid_t pid_;
  bool ok_ = false;
};

}  // namespace railyard::e2e
