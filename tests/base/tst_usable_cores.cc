// SPDX-License-Identifier: Apache-2.0
// base::UsableCores(): the cores a process may use, which the default thread counts follow. Its
// quota parsers; a thread pinned to one core sees one; a child process in a cgroup of its own
// with a quota of one core sees one (as root, where the cgroup file system can be written;
// skipped with the reason elsewhere, never passed silently).
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QTest>
#include <fstream>
#include <optional>
#include <string>

#include "core/base/usable_cores.h"
#include "tests/support/qtest_main.h"

using railyard::base::CfsQuotaCores;
using railyard::base::CpuMaxCores;
using railyard::base::UsableCores;

namespace {

int AffinityCount() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : -1;
}

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

// A cgroup of this test's own with a CPU quota of one core, under the hierarchy root (v1's `cpu`
// or v2's unified one, where the root delegates `cpu`). Removed on destruction.
class OneCoreCgroup {
 public:
  OneCoreCgroup() {
    why_not_ = Make("railyard-usable-cores-" + std::to_string(::getpid()));
    if (!why_not_.empty()) why_not_ += " (needs root and a writable cgroup file system)";
  }
  ~OneCoreCgroup() {
    if (made_) ::rmdir(dir_.c_str());
  }
  bool ok() const { return why_not_.empty(); }
  const std::string& why_not() const { return why_not_; }
  std::string procs() const { return dir_ + "/cgroup.procs"; }

 private:
  // Empty when made; else why not.
  std::string Make(const std::string& name) {
    const bool v1 = ::access("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", F_OK) == 0;
    if (!v1) {
      std::ifstream controllers("/sys/fs/cgroup/cgroup.subtree_control");
      std::string line;
      std::getline(controllers, line);
      if (line.find("cpu") == std::string::npos) {
        return "neither cgroup v1's cpu hierarchy nor a v2 root delegating cpu";
      }
    }
    dir_ = (v1 ? "/sys/fs/cgroup/cpu/" : "/sys/fs/cgroup/") + name;
    if (::mkdir(dir_.c_str(), 0755) != 0) return "cannot make " + dir_;
    made_ = true;
    const bool set = v1 ? WriteFile(dir_ + "/cpu.cfs_period_us", "100000") &&
                              WriteFile(dir_ + "/cpu.cfs_quota_us", "100000")
                        : WriteFile(dir_ + "/cpu.max", "100000 100000");
    return set ? "" : "cannot set a quota in " + dir_;
  }

  std::string dir_;
  std::string why_not_;
  bool made_ = false;
};

}  // namespace

class UsableCoresTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void quotasAreReadAsCores() {
    QCOMPARE(CpuMaxCores("150000 100000"), std::optional<double>(1.5));
    QCOMPARE(CpuMaxCores("50000 100000"), std::optional<double>(0.5));
    QCOMPARE(CpuMaxCores("max 100000"), std::nullopt);
    QCOMPARE(CpuMaxCores("max"), std::nullopt);
    QCOMPARE(CpuMaxCores("lots 100000"), std::nullopt);
    QCOMPARE(CpuMaxCores(""), std::nullopt);
    QCOMPARE(CfsQuotaCores(-1, 100000), std::nullopt);  // v1's "no quota".
    QCOMPARE(CfsQuotaCores(200000, 100000), std::optional<double>(2.0));
    QCOMPARE(CfsQuotaCores(100000, 0), std::nullopt);
  }

  void neverMoreThanTheAffinityAllows() {
    const int allowed = AffinityCount();
    QVERIFY(allowed >= 1);
    QVERIFY(UsableCores() >= 1);
    QVERIFY(UsableCores() <= size_t(allowed));
  }

  // As `taskset -c 0` or systemd's CPUAffinity= would: this thread on one core.
  void aThreadPinnedToOneCoreSeesOne() {
    cpu_set_t before;
    CPU_ZERO(&before);
    QCOMPARE(sched_getaffinity(0, sizeof(before), &before), 0);
    int first = -1;
    for (int cpu = 0; cpu < CPU_SETSIZE && first < 0; ++cpu) {
      if (CPU_ISSET(cpu, &before)) first = cpu;
    }
    QVERIFY(first >= 0);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    QCOMPARE(sched_setaffinity(0, sizeof(one), &one), 0);
    const size_t seen = UsableCores();
    QCOMPARE(sched_setaffinity(0, sizeof(before), &before), 0);
    QCOMPARE(seen, size_t{1});
  }

  // As docker --cpus=1 or systemd's CPUQuota=100% would: a quota of one core on the cgroup. In a
  // child process, which joins the cgroup alone and says what it sees in its exit status.
  void aProcessWithAOneCoreQuotaSeesOne() {
    OneCoreCgroup cgroup;
    if (!cgroup.ok()) QSKIP(cgroup.why_not().c_str());
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
      if (!WriteFile(cgroup.procs(), std::to_string(::getpid()))) ::_exit(100);
      ::_exit(static_cast<int>(std::min<size_t>(UsableCores(), 99)));
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY(WIFEXITED(status));
    QVERIFY2(WEXITSTATUS(status) != 100, "the child could not join the cgroup");
    QCOMPARE(WEXITSTATUS(status), 1);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(UsableCoresTest)
#include "tst_usable_cores.moc"
