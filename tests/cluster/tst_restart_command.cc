// SPDX-License-Identifier: Apache-2.0
// A rolling restart's restart command, run by the real /bin/sh: {name} becomes one shell word
// whatever the name holds, the output comes back, a failure says how it ended and its last line,
// a command that hangs is killed at its timeout with what it started, and a node left running in
// the background does not hold the restart up.
#include <QTest>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iterator>
#include <string>

#include "core/cluster/restart_command.h"
#include "tests/support/qtest_main.h"
#include "tests/support/wait_until.h"

using namespace railyard;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// Alive and not a zombie (an orphan's zombie may never be reaped where PID 1 does not reap).
bool Running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

}  // namespace

class RestartCommandTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void nameIsOneShellWord() {
    QCOMPARE(cluster::RestartCommandLine("ssh {name} restart", "replica-1.example"),
             std::string("ssh replica-1.example restart"));
    QCOMPARE(cluster::RestartCommandLine("x {name} {name}", "a"), std::string("x a a"));
    // Whatever a name holds reaches the command as that name, never as shell code.
    const std::string hostile = "a b'c; touch /tmp/railyard-never $(id)";
    std::string output;
    const rpc::Status s = cluster::RunRestartCommand("printf '[%s]' {name}", hostile, 10s, &output);
    QVERIFY2(s.ok(), s.ToString().c_str());
    QCOMPARE(output, "[" + hostile + "]");
  }

  void failureSaysHowItEndedAndItsLastLine() {
    std::string output;
    rpc::Status s = cluster::RunRestartCommand(
        "echo restarting {name}; echo 'unit not found' >&2; exit 5", "replica2", 10s, &output);
    QCOMPARE(s.code(), rpc::Code::kInternal);
    QVERIFY2(s.message() ==
                 "`echo restarting replica2; echo 'unit not found' >&2; exit 5` "
                 "exited with 5: unit not found",
             s.message().c_str());
    QCOMPARE(output, std::string("restarting replica2\nunit not found\n"));
    s = cluster::RunRestartCommand("kill -9 $$", "n", 10s, nullptr);
    QVERIFY2(s.message().find("was killed by signal 9") != std::string::npos, s.message().c_str());
  }

  void aHangingCommandIsKilledAtItsTimeout() {
    // The shell and the sleep it started: both in the command's process group, both killed.
    std::string output;
    const auto start = Clock::now();
    // 3 s: time enough for the shell to start and print both PIDs on a loaded machine.
    const rpc::Status s =
        cluster::RunRestartCommand("echo $$; sleep 60 & echo $!; wait", "n", 3s, &output);
    QCOMPARE(s.code(), rpc::Code::kDeadlineExceeded);
    QVERIFY(Clock::now() - start < 30s);
    QVERIFY2(s.message().find("did not end within 3000 ms") != std::string::npos,
             s.message().c_str());
    const QStringList pids = QString::fromStdString(output).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(pids.size(), 2);
    bool number = false;
    const pid_t sleeper = static_cast<pid_t>(pids[1].toInt(&number));
    QVERIFY2(number, output.c_str());
    QVERIFY(railyard::testing::WaitUntil([&] { return !Running(sleeper); }, 10s));
  }

  // `systemctl restart` returns once the unit started; a plain command may leave the node in the
  // background, holding the output pipe open: the shell's exit ends the wait.
  void aProcessLeftInTheBackgroundDoesNotHoldItUp() {
    std::string output;
    const auto start = Clock::now();
    const rpc::Status s = cluster::RunRestartCommand("sleep 60 & echo $!", "n", 30s, &output);
    const auto took = Clock::now() - start;
    QVERIFY2(s.ok(), s.ToString().c_str());
    const pid_t background = static_cast<pid_t>(std::stol(output));
    QVERIFY(Running(background));
    ::kill(background, SIGKILL);
    QVERIFY(took < 20s);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(RestartCommandTest)
#include "tst_restart_command.moc"
