// SPDX-License-Identifier: Apache-2.0
// load::ChildProcess against real programs: how a child ended, a program that is not there, its
// output where it was asked to go, SIGTERM with a grace and SIGKILL after it, and a child that
// dies with its parent.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QDir>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <chrono>
#include <memory>
#include <string>

#include "core/load/child_process.h"
#include "tests/support/qtest_main.h"
#include "tests/support/wait_until.h"

using railyard::base::StatusCode;
using railyard::load::ChildProcess;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<ChildProcess> StartShell(const std::string& script, int stdout_fd = -1) {
  ChildProcess::Spawn spawn;
  spawn.argv = {"sh", "-c", script};
  spawn.stdout_fd = stdout_fd;
  std::unique_ptr<ChildProcess> child;
  const railyard::base::Status s = ChildProcess::Start(spawn, &child);
  if (!s.ok()) qWarning("%s", s.ToString().c_str());
  return child;
}

// Everything `fd` gives until end of file, or until 10 s have passed.
std::string ReadAll(int fd) {
  std::string out;
  char buffer[256];
  const auto give_up = std::chrono::steady_clock::now() + 10s;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        give_up - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) return out;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) return out;
    out.append(buffer, static_cast<size_t>(n));
  }
}

// A process by that PID exists (a zombie too: reaping is what ends it).
bool Exists(pid_t pid) { return ::kill(pid, 0) == 0; }

}  // namespace

class ChildProcessTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void itsExitStatusAndOutput() {
    int pipe_fds[2];
    QCOMPARE(::pipe2(pipe_fds, O_CLOEXEC), 0);
    std::unique_ptr<ChildProcess> child = StartShell("echo hello; exit 3", pipe_fds[1]);
    ::close(pipe_fds[1]);
    QVERIFY(child);
    QCOMPARE(ReadAll(pipe_fds[0]), std::string("hello\n"));
    ::close(pipe_fds[0]);
    QVERIFY(child->WaitUntil(std::chrono::steady_clock::now() + 10s));
    QVERIFY(!child->Running());
    QCOMPARE(child->pid(), pid_t{-1});
    QVERIFY(child->exit().exited);
    QCOMPARE(child->exit().code, 3);
    QCOMPARE(child->exit().Describe(), std::string("exited with status 3"));
    QVERIFY(!child->Stop(1s).killed_by_stop);  // Idempotent: how it ended stays.
  }

  void aProgramThatIsNotThereIsAnError() {
    ChildProcess::Spawn spawn;
    spawn.argv = {"railyard-no-such-program-here"};
    std::unique_ptr<ChildProcess> child;
    railyard::base::Status s = ChildProcess::Start(spawn, &child);
    QCOMPARE(s.code(), StatusCode::kNotFound);
    QVERIFY2(s.message().find("railyard-no-such-program-here") != std::string::npos,
             s.message().c_str());
    QVERIFY(!child);
    // A path that exec refuses: the exec's own error comes back.
    spawn.argv = {"/nonexistent/railyard-node"};
    s = ChildProcess::Start(spawn, &child);
    QCOMPARE(s.code(), StatusCode::kNotFound);
    QVERIFY2(s.message().find("No such file") != std::string::npos, s.message().c_str());
    spawn.argv = {"/dev/null"};  // Not executable.
    s = ChildProcess::Start(spawn, &child);
    QVERIFY2(!s.ok() && s.message().find("Permission denied") != std::string::npos,
             s.message().c_str());
    spawn.argv.clear();
    QCOMPARE(ChildProcess::Start(spawn, &child).code(), StatusCode::kInvalidArgument);
  }

  // $PATH lookup (also FindNodeBinary's): executable regular files only, empty entries skipped.
  void aNameIsFoundOnPath() {
    const QByteArray saved = qgetenv("PATH");
    auto restore = qScopeGuard([&] { qputenv("PATH", saved); });
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir("railyard-probe"));  // A directory of that name: skipped.
    qputenv("PATH", ("::" + dir.path() + ":/usr/bin:/bin").toUtf8());
    std::string path;
    QVERIFY(railyard::load::FindOnPath("sh", &path));
    QVERIFY2(path == "/usr/bin/sh" || path == "/bin/sh", path.c_str());
    QVERIFY(!railyard::load::FindOnPath("railyard-probe", &path));
  }

  void stopGivesAGraceThenKills() {
    // Ends on SIGTERM by itself: not killed.
    std::unique_ptr<ChildProcess> polite =
        StartShell("trap 'exit 7' TERM; while :; do sleep 0.05; done");
    QVERIFY(polite);
    QVERIFY(polite->Running());
    // The trap is set once the shell runs its loop; a TERM before that ends it by the signal.
    const ChildProcess::Exit& ended = polite->Stop(10s);
    QVERIFY(ended.ended);
    QVERIFY(!ended.killed_by_stop);
    QVERIFY2((ended.exited && ended.code == 7) || ended.signal == SIGTERM,
             ended.Describe().c_str());
    // Ignores SIGTERM: killed once the grace is over.
    int pipe_fds[2];
    QCOMPARE(::pipe2(pipe_fds, O_CLOEXEC), 0);
    std::unique_ptr<ChildProcess> stubborn =
        StartShell("trap '' TERM; echo ready; while :; do sleep 0.05; done", pipe_fds[1]);
    ::close(pipe_fds[1]);
    QVERIFY(stubborn);
    char ready[6] = {};
    QCOMPARE(::read(pipe_fds[0], ready, 6), ssize_t{6});  // The trap is set.
    ::close(pipe_fds[0]);
    const pid_t pid = stubborn->pid();
    const ChildProcess::Exit& killed = stubborn->Stop(200ms);
    QVERIFY(killed.killed_by_stop);
    QCOMPARE(killed.signal, SIGKILL);
    QVERIFY(!Exists(pid));
  }

  void theDestructorKillsAndReaps() {
    pid_t pid = -1;
    {
      std::unique_ptr<ChildProcess> child = StartShell("exec sleep 60");
      QVERIFY(child);
      pid = child->pid();
      QVERIFY(Exists(pid));
    }
    QVERIFY(!Exists(pid));  // Reaped too: no zombie answers kill(pid, 0).
  }

  // A middle process starts a child through ChildProcess and is killed without stopping it: the
  // child's parent-death signal ends it. This process adopts the orphan (a subreaper for the test's
  // length) so that it can see how the child ended.
  void aChildDiesWithItsParent() {
    QCOMPARE(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    auto restore = qScopeGuard([] { ::prctl(PR_SET_CHILD_SUBREAPER, 0); });
    int pipe_fds[2];
    QCOMPARE(::pipe2(pipe_fds, O_CLOEXEC), 0);
    const pid_t middle = ::fork();
    QVERIFY(middle >= 0);
    if (middle == 0) {
      ChildProcess::Spawn spawn;
      spawn.argv = {"sleep", "60"};
      std::unique_ptr<ChildProcess> child;
      if (!ChildProcess::Start(spawn, &child).ok()) ::_exit(1);
      const pid_t pid = child->pid();
      if (::write(pipe_fds[1], &pid, sizeof pid) != static_cast<ssize_t>(sizeof pid)) ::_exit(1);
      for (;;) ::pause();  // Until killed.
    }
    ::close(pipe_fds[1]);
    pid_t child = -1;
    const ssize_t got = ::read(pipe_fds[0], &child, sizeof child);
    ::close(pipe_fds[0]);
    ::kill(middle, SIGKILL);
    int status = 0;
    QCOMPARE(::waitpid(middle, &status, 0), middle);
    QCOMPARE(got, static_cast<ssize_t>(sizeof child));
    pid_t reaped = 0;
    const bool ended = railyard::testing::WaitUntil([&] {
      reaped = ::waitpid(child, &status, WNOHANG);
      return reaped != 0;
    });
    if (!ended) {  // Still running: stopped here, before the checks fail.
      ::kill(child, SIGKILL);
      ::waitpid(child, nullptr, 0);
    }
    QVERIFY(ended);
    QCOMPARE(reaped, child);
    QVERIFY(WIFSIGNALED(status));
    QCOMPARE(WTERMSIG(status), SIGKILL);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ChildProcessTest)
#include "tst_child_process.moc"
