// SPDX-License-Identifier: Apache-2.0
// The soak run: 64 client connections (4 `railyardctl load` processes with pools of 16) against 3
// railyard-node processes on loopback for RAILYARD_SOAK_SECONDS (default 60), while a seeded chaos
// loop drains and undrains nodes, kills them (SIGKILL) or stops them (SIGTERM) and restarts them on
// the same ports, and compacts and flushes by hand. Once the clients leave, every slot table must
// be empty, every node's open descriptors back to their baseline and its memory within a bound.
// Prints one JSON line per chaos event, per node and for the run. RAILYARD_SOAK_SEED picks another
// chaos schedule. Label `slow`; by hand: scripts/soak.sh --duration-s 600.
#include <signal.h>

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "tests/e2e/node_process.h"
#include "tests/e2e/proc_stats.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

using namespace railyard;
using Clock = std::chrono::steady_clock;

namespace {

constexpr char kViewer[] = "viewer-secret";
constexpr char kOperator[] = "operator-secret";
constexpr int kNodes = 3;
constexpr int kLoads = 4;
constexpr int kPoolPerLoad = 16;
constexpr int kClientConnections = kLoads * kPoolPerLoad;  // 64
// Open loop, so the offered load is the same whatever the chaos does, and two shared cores are
// not saturated: 4 x 400 calls/s, half of them writes.
constexpr int kRatePerLoad = 400;
// Small enough that every node flushes its memtable every few seconds and compacts on its own.
constexpr int kMemtableEntries = 1000;
constexpr int kGraceMs = 1000;
// See `rejection_bound` below.
constexpr double kRejectionShare = 0.05;
// Descriptors. Those of the docstore's files follow its file set as it flushes and compacts (one
// per index Bloom file, two for the log and for the current segment), so they are not compared
// with the baseline; instead none may point at a deleted file (an index compacted away but never
// closed) and none of its files may be open more than twice. Every other descriptor (listeners,
// sockets, pipes, event and timer descriptors, the log) must be back to its baseline exactly:
// a leak of one per connection or per restart of a client would show at once (thousands of
// reconnections happen over a run).
constexpr int kMaxFdsPerStoreFile = 2;
constexpr int kOtherFdSlack = 0;
// Heap (RssAnon) a node may gain between its baseline and the end. What it legitimately holds is
// a few MiB: the memtable (1000 entries of ~150 bytes), the Bloom filters of 20000 keys (~25 KiB),
// 64 connections' buffers, telemetry history, and glibc's per-thread malloc arenas once touched.
// 32 MiB is several times that, and a leak of 1 KiB per call (~30000 calls per node per minute)
// or of a connection's buffers per reconnection would pass it within minutes.
constexpr int64_t kAnonGrowthBoundKib = 32 * 1024;
// All resident memory (VmRSS) at its peak may also hold pages of the mapped segment and index
// files, which grow with the documents stored: its growth is bounded by the heap bound plus the
// size of the node's data directory at the end.

int SoakSeconds() {
  bool ok = false;
  const int seconds = qEnvironmentVariableIntValue("RAILYARD_SOAK_SECONDS", &ok);
  return ok ? std::clamp(seconds, 10, 24 * 3600) : 60;
}

uint64_t SoakSeed() {
  bool ok = false;
  const qulonglong seed = qgetenv("RAILYARD_SOAK_SEED").toULongLong(&ok);
  return ok ? seed : 20261123;
}

// Polls every 100 ms (each poll may open an admin connection) until `condition` or `timeout`.
bool PollUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const Clock::time_point give_up = Clock::now() + timeout;
  while (!condition()) {
    if (Clock::now() >= give_up) return condition();
    QThread::msleep(100);
  }
  return true;
}

int Ctl(const QStringList& args, QString* out = nullptr) {
  return railyard::e2e::RunCtl(BuiltProgram("railyardctl"), args, out);
}

enum class Chaos { kDrain, kSigkill, kSigterm, kCompact, kFlush };
constexpr Chaos kAllChaos[] = {Chaos::kDrain, Chaos::kSigkill, Chaos::kSigterm, Chaos::kCompact,
                               Chaos::kFlush};

const char* ChaosName(Chaos c) {
  switch (c) {
    case Chaos::kDrain:
      return "drain";
    case Chaos::kSigkill:
      return "sigkill";
    case Chaos::kSigterm:
      return "sigterm";
    case Chaos::kCompact:
      return "compact";
    case Chaos::kFlush:
      return "flush";
  }
  return "?";
}

// "socket x3, /data/wal-000001.log x2, ...": what a process's descriptors point at, by kind.
QString DescribeFds(const std::vector<std::string>& targets) {
  std::map<std::string, int> kinds;
  for (const std::string& target : targets) ++kinds[target.substr(0, target.find('['))];
  QStringList out;
  for (const auto& [kind, count] : kinds) {
    out << QString("%1 x%2").arg(QString::fromStdString(kind)).arg(count);
  }
  return out.join(", ");
}

// What we know of one node across its restarts.
// A process's descriptors, sorted by what they are.
struct FdFigures {
  int total = -1;
  int connections = 0;  // TCP connections to peers.
  int store = 0;        // Files in the node's data directory.
  int deleted = 0;      // Files deleted while still open.
  int max_per_store_file = 0;
  int other() const { return total - connections - store; }
};

FdFigures ClassifyFds(int64_t pid, const QString& data_dir, std::vector<std::string>* targets) {
  FdFigures f;
  const auto counts = e2e::CountFds(pid, targets);
  if (!counts) return f;
  f.total = counts->total;
  f.connections = counts->connections;
  const std::string prefix = data_dir.toStdString() + "/";
  std::map<std::string, int> per_file;
  for (const std::string& target : *targets) {
    if (target.size() >= 10 && target.compare(target.size() - 10, 10, " (deleted)") == 0) {
      ++f.deleted;
    }
    if (target.rfind(prefix, 0) == 0) {
      ++f.store;
      f.max_per_store_file = std::max(f.max_per_store_file, ++per_file[target]);
    }
  }
  return f;
}

int64_t DirectoryKib(const QString& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  uint64_t bytes = 0;
  for (fs::recursive_directory_iterator it(path.toStdString(), ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code size_ec;
    if (it->is_regular_file(size_ec)) {
      const uint64_t size = it->file_size(size_ec);
      if (!size_ec) bytes += size;
    }
  }
  return static_cast<int64_t>(bytes / 1024);
}

// What we know of one node across its restarts.
struct NodeFigures {
  int restarts = 0;
  FdFigures fds_at_start;  // Of the current process, once it settled after its start.
  std::vector<std::string> fd_targets_at_start;
  e2e::MemoryKib memory_at_start;   // Likewise.
  int64_t rss_peak_kib = 0;         // Highest VmRSS of any of its processes.
  int64_t rss_peak_growth_kib = 0;  // Highest VmRSS over its process's baseline.
};

struct LoadSummary {
  int exit_code = -1;
  bool normal_exit = false;
  QJsonObject json;
};

}  // namespace

class SoakTest : public QObject {
  Q_OBJECT
 public:
  // Before the application (QtTest's hook): QtTest's watchdog stops a test function after 5
  // minutes; a soak runs as long as it is asked.
  static void initMain() {
    if (qEnvironmentVariableIsEmpty("QTEST_FUNCTION_TIMEOUT")) {
      qputenv("QTEST_FUNCTION_TIMEOUT", QByteArray::number((SoakSeconds() + 600) * 1000LL));
    }
  }

 private:
  std::unique_ptr<QTemporaryDir> dir_;
  std::vector<std::unique_ptr<e2e::NodeProcess>> nodes_;
  std::vector<NodeFigures> figures_;
  std::vector<std::unique_ptr<QProcess>> loads_;
  Clock::time_point started_;

  int Slots(int node) const {
    admin::Telemetry t;
    return nodes_[node]->Telemetry(kViewer, &t) ? t.slots_size() : -1;
  }
  int TotalSlots() const {
    int total = 0;
    for (int i = 0; i < kNodes; ++i) total += std::max(Slots(i), 0);
    return total;
  }
  double Elapsed() const { return std::chrono::duration<double>(Clock::now() - started_).count(); }

  QString DataDir(int node) const { return dir_->filePath(nodes_[node]->name()); }

  // The baseline of a node's current process, once it answers and its descriptors stopped
  // changing (it sets up its signal handling just after printing its addresses): its descriptors
  // (client connections that already reached a restarted node are counted apart) and its memory.
  void TakeBaseline(int node) {
    NodeFigures& f = figures_[node];
    QVERIFY2(PollUntil([&] { return Slots(node) >= 0; }, std::chrono::seconds(10)),
             "a node's admin service does not answer");
    int stable = 0, last = -1;
    PollUntil(
        [&] {
          f.fds_at_start = ClassifyFds(nodes_[node]->pid(), DataDir(node), &f.fd_targets_at_start);
          stable = f.fds_at_start.other() == last ? stable + 1 : 0;
          last = f.fds_at_start.other();
          return stable >= 3;
        },
        std::chrono::seconds(5));
    const auto memory = e2e::ReadMemory(nodes_[node]->pid());
    QVERIFY2(f.fds_at_start.total >= 0 && memory, "cannot read /proc for a node");
    f.memory_at_start = *memory;
  }

  // Highest resident memory seen, over each process's own baseline.
  void SampleMemory(int node) {
    if (!nodes_[node]->running()) return;
    const auto memory = e2e::ReadMemory(nodes_[node]->pid());
    if (!memory) return;
    NodeFigures& f = figures_[node];
    const int64_t peak = std::max(memory->hwm, memory->rss);
    f.rss_peak_kib = std::max(f.rss_peak_kib, peak);
    f.rss_peak_growth_kib = std::max(f.rss_peak_growth_kib, peak - f.memory_at_start.rss);
  }
  void SampleAllMemory() {
    for (int i = 0; i < kNodes; ++i) SampleMemory(i);
  }

  void StartNode(int node) {
    QString error;
    QVERIFY2(nodes_[node]->Start(0, 0, &error), qPrintable(error));
    TakeBaseline(node);
  }

  void RestartNode(int node) {
    QString error;
    QVERIFY2(nodes_[node]->Restart(&error), qPrintable(error));
    ++figures_[node].restarts;
    TakeBaseline(node);
    if (QTest::currentTestFailed()) return;
    // The clients' acquirers find it again on their own.
    QVERIFY2(PollUntil([&] { return Slots(node) > 0; }, std::chrono::seconds(20)),
             "no client came back to a restarted node");
  }

  void StartLoad(int index, int seconds) {
    auto load = std::make_unique<QProcess>();
    load->setStandardErrorFile(dir_->filePath(QString("load%1.log").arg(index)));
    QStringList args{"load",
                     "--duration-s",
                     QString::number(seconds + 600),
                     "--rate",
                     QString::number(kRatePerLoad),
                     "--pool-size",
                     QString::number(kPoolPerLoad),
                     "--read-fraction",
                     "0.5",
                     "--keys",
                     "20000",
                     "--progress-ms",
                     "1000",
                     "--json",
                     "--unreplicated"};  // Three independent nodes: each takes writes.
    for (const auto& n : nodes_) args << "--server" << n->service_address();
    load->start(BuiltProgram("railyardctl"), args);
    QVERIFY(load->waitForStarted(5000));
    loads_.push_back(std::move(load));
  }

  // SIGINT ends a load early with its summary.
  static LoadSummary StopLoad(QProcess& load) {
    LoadSummary summary;
    ::kill(static_cast<pid_t>(load.processId()), SIGINT);
    if (!load.waitForFinished(30000)) {
      load.kill();
      load.waitForFinished(5000);
      return summary;
    }
    summary.exit_code = load.exitCode();
    summary.normal_exit = load.exitStatus() == QProcess::NormalExit;
    const QString out = QString::fromUtf8(load.readAllStandardOutput());
    const qsizetype at = out.indexOf("{\"load\":\"summary\"");
    if (at >= 0) {
      summary.json = QJsonDocument::fromJson(out.mid(at).section('\n', 0, 0).toUtf8()).object();
    }
    return summary;
  }

  void PrintEvent(Chaos kind, int node, const QString& detail) {
    std::printf("{\"soak\":\"event\",\"t_s\":%.1f,\"kind\":\"%s\",\"node\":\"%s\"%s}\n", Elapsed(),
                ChaosName(kind), qPrintable(nodes_[node]->name()), qPrintable(detail));
    std::fflush(stdout);
  }

  // One chaos event; leaves the node serving again before it returns.
  void RunChaos(Chaos kind, int node) {
    e2e::NodeProcess& n = *nodes_[node];
    switch (kind) {
      case Chaos::kDrain: {
        QCOMPARE(Ctl({"drain", "-n", n.admin_address(), "--token", kOperator}), 0);
        // Its slot table empties: clients move their connections to the other nodes.
        QVERIFY2(PollUntil([&] { return Slots(node) == 0; }, std::chrono::seconds(20)),
                 "a drained node kept its clients");
        QThread::msleep(500);
        QCOMPARE(Ctl({"undrain", "-n", n.admin_address(), "--token", kOperator}), 0);
        QVERIFY2(PollUntil([&] { return Slots(node) > 0; }, std::chrono::seconds(20)),
                 "no client came back to an undrained node");
        PrintEvent(kind, node, "");
        return;
      }
      case Chaos::kSigkill: {
        SampleMemory(node);
        n.Kill();
        QThread::msleep(300);  // Clients see it gone and retry elsewhere.
        RestartNode(node);
        PrintEvent(kind, node, QString(",\"restarts\":%1").arg(figures_[node].restarts));
        return;
      }
      case Chaos::kSigterm: {
        SampleMemory(node);
        int exit_code = -1;
        QVERIFY2(n.Terminate(std::chrono::milliseconds(kGraceMs + 10000), &exit_code),
                 "a node did not stop on SIGTERM");
        QCOMPARE(exit_code, 0);
        RestartNode(node);
        PrintEvent(kind, node, QString(",\"restarts\":%1").arg(figures_[node].restarts));
        return;
      }
      case Chaos::kCompact:
      case Chaos::kFlush: {
        QString out;
        const int rc = Ctl({kind == Chaos::kCompact ? "compact" : "flush", "-n", n.admin_address(),
                            "--token", kOperator},
                           &out);
        QVERIFY2(rc == 0, qPrintable(out));
        PrintEvent(kind, node, "");
        return;
      }
    }
  }

 private Q_SLOTS:
  void init() {
    dir_ = std::make_unique<QTemporaryDir>();
    QVERIFY(dir_->isValid());
    for (const auto& [file, token] :
         {std::pair{"viewer", kViewer}, std::pair{"operator", kOperator}}) {
      QFile out(dir_->filePath(file));
      QVERIFY(out.open(QIODevice::WriteOnly));
      out.write(token);
    }
  }

  void cleanup() {
    // Loads first, so nothing reconnects to nodes being stopped; every process is SIGKILLed if
    // the test ended early.
    for (auto& load : loads_) {
      if (load->state() != QProcess::NotRunning) {
        load->kill();
        load->waitForFinished(5000);
      }
    }
    loads_.clear();
    nodes_.clear();
    figures_.clear();
    if (QTest::currentTestFailed()) {
      dir_->setAutoRemove(false);  // Keep the nodes' and loads' logs.
      qWarning("soak: logs kept in %s", qPrintable(dir_->path()));
    }
    dir_.reset();
  }

  void soakKeepsSlotsFdsAndMemoryBounded() {
    const int seconds = SoakSeconds();
    const uint64_t seed = SoakSeed();
    started_ = Clock::now();
    figures_.resize(kNodes);
    for (int i = 0; i < kNodes; ++i) {
      const QString name = QString("node%1").arg(i);
      nodes_.push_back(std::make_unique<e2e::NodeProcess>(e2e::NodeProcessOptions{
          BuiltProgram("railyard-node"), name, dir_->filePath(name), dir_->path(),
          dir_->filePath(name + ".log"), kMemtableEntries, kGraceMs}));
      StartNode(i);
      if (QTest::currentTestFailed()) return;
    }
    for (int i = 0; i < kLoads; ++i) {
      StartLoad(i, seconds);
      if (QTest::currentTestFailed()) return;
    }
    std::printf("{\"soak\":\"loads_started\",\"t_s\":%.1f,\"loads\":%d}\n", Elapsed(), kLoads);
    // Every pool fills: 64 connections over the 3 slot tables (an acquirer's probe may add one
    // per client for a moment).
    int slots = 0;
    QVERIFY2(PollUntil(
                 [&] {
                   slots = TotalSlots();
                   return slots >= kClientConnections;
                 },
                 std::chrono::seconds(30)),
             qPrintable(QString("only %1 client connections").arg(slots)));
    QVERIFY(slots <= kClientConnections + kLoads);

    // The chaos: a shuffled bag of every kind, refilled when empty, one event every 1.5-3.5 s.
    // SIGKILL and SIGTERM hit node1 and node2 only, so node0's figures cover the whole run.
    std::mt19937_64 rng(seed);
    std::vector<Chaos> bag;
    int counts[std::size(kAllChaos)] = {};
    const Clock::time_point soak_end = started_ + std::chrono::seconds(seconds);
    const int max_events = seconds + 10;
    for (int event = 0; event < max_events && Clock::now() < soak_end; ++event) {
      const Clock::time_point next =
          Clock::now() +
          std::chrono::milliseconds(std::uniform_int_distribution<int>(1500, 3500)(rng));
      while (Clock::now() < next && Clock::now() < soak_end) {
        SampleAllMemory();
        QThread::msleep(250);
      }
      if (Clock::now() >= soak_end) break;
      if (bag.empty()) {
        bag.assign(std::begin(kAllChaos), std::end(kAllChaos));
        std::shuffle(bag.begin(), bag.end(), rng);
      }
      const Chaos kind = bag.back();
      bag.pop_back();
      const bool restarts = kind == Chaos::kSigkill || kind == Chaos::kSigterm;
      const int node = restarts ? std::uniform_int_distribution<int>(1, kNodes - 1)(rng)
                                : std::uniform_int_distribution<int>(0, kNodes - 1)(rng);
      RunChaos(kind, node);
      if (QTest::currentTestFailed()) return;
      ++counts[static_cast<int>(kind)];
    }
    SampleAllMemory();
    const double chaos_s = Elapsed();
    // Before the clients leave, the cluster holds all 64 of their connections again.
    QVERIFY2(PollUntil(
                 [&] {
                   slots = TotalSlots();
                   return slots >= kClientConnections;
                 },
                 std::chrono::seconds(30)),
             qPrintable(QString("only %1 client connections after the chaos").arg(slots)));

    // The clients leave.
    double calls = 0, ok = 0, not_found = 0, errors = 0, rejections = 0, retries = 0;
    for (auto& load : loads_) {
      const LoadSummary summary = StopLoad(*load);
      QVERIFY2(summary.normal_exit && !summary.json.isEmpty(),
               "a load did not stop with a summary");
      const double load_errors = summary.json["errors"].toDouble();
      QCOMPARE(summary.exit_code, load_errors == 0 ? 0 : 1);  // railyardctl's contract.
      calls += summary.json["requests"].toDouble();
      ok += summary.json["ok"].toDouble();
      not_found += summary.json["not_found"].toDouble();
      errors += load_errors;
      rejections += summary.json["rejections"].toDouble();
      retries += summary.json["retries"].toDouble();
    }
    const int sigkills = counts[static_cast<int>(Chaos::kSigkill)];
    const int sigterms = counts[static_cast<int>(Chaos::kSigterm)];
    const int drains = counts[static_cast<int>(Chaos::kDrain)];
    // A failed call is one that ran out of retries while a node went away: at most every pooled
    // connection's call in flight at each disruption.
    const double failure_bound = (sigkills + sigterms + drains) * kClientConnections;
    // POOL_EXHAUSTED refusals are the open-loop generator's own: when its process was descheduled
    // (two cores shared with builds), it sends the calls it missed at once, more than its 16
    // connections carry. They are counted and bounded, not charged to the nodes.
    const double rejection_bound = kRejectionShare * calls;

    // Slot tables empty, descriptors back, memory bounded.
    std::vector<int> slots_end(kNodes, -1);
    std::vector<FdFigures> fds_end(kNodes);
    std::vector<std::vector<std::string>> fd_targets_end(kNodes);
    const auto fds_back = [&](int i) {
      const FdFigures& end = fds_end[i];
      return end.total >= 0 && end.connections == 0 && end.deleted == 0 &&
             end.max_per_store_file <= kMaxFdsPerStoreFile &&
             end.other() <= figures_[i].fds_at_start.other() + kOtherFdSlack;
    };
    for (int i = 0; i < kNodes; ++i) {
      PollUntil([&] { return (slots_end[i] = Slots(i)) == 0; }, std::chrono::seconds(15));
      // Our own admin connections close asynchronously on the node's side.
      PollUntil(
          [&] {
            fds_end[i] = ClassifyFds(nodes_[i]->pid(), DataDir(i), &fd_targets_end[i]);
            return fds_back(i);
          },
          std::chrono::seconds(15));
    }
    SampleAllMemory();
    bool within = true;
    for (int i = 0; i < kNodes; ++i) {
      const NodeFigures& f = figures_[i];
      const e2e::MemoryKib end = e2e::ReadMemory(nodes_[i]->pid()).value_or(e2e::MemoryKib{});
      const int64_t anon_growth = end.rss_anon - f.memory_at_start.rss_anon;
      const int64_t store_kib = DirectoryKib(DataDir(i));
      const int64_t rss_bound = kAnonGrowthBoundKib + store_kib;
      std::printf(
          "{\"soak\":\"node\",\"node\":\"%s\",\"restarts\":%d,\"slots_end\":%d,"
          "\"fds_baseline\":%d,\"fds_end\":%d,\"fds_other_baseline\":%d,\"fds_other_end\":%d,"
          "\"fds_store_baseline\":%d,\"fds_store_end\":%d,\"fds_deleted_end\":%d,"
          "\"connections_end\":%d,\"rss_baseline_kib\":%lld,\"rss_peak_kib\":%lld,"
          "\"rss_peak_growth_kib\":%lld,\"rss_peak_growth_bound_kib\":%lld,\"rss_end_kib\":%lld,"
          "\"anon_baseline_kib\":%lld,\"anon_end_kib\":%lld,\"anon_growth_kib\":%lld,"
          "\"store_kib\":%lld}\n",
          qPrintable(nodes_[i]->name()), f.restarts, slots_end[i],
          f.fds_at_start.total - f.fds_at_start.connections, fds_end[i].total,
          f.fds_at_start.other(), fds_end[i].other(), f.fds_at_start.store, fds_end[i].store,
          fds_end[i].deleted, fds_end[i].connections, static_cast<long long>(f.memory_at_start.rss),
          static_cast<long long>(f.rss_peak_kib), static_cast<long long>(f.rss_peak_growth_kib),
          static_cast<long long>(rss_bound), static_cast<long long>(end.rss),
          static_cast<long long>(f.memory_at_start.rss_anon), static_cast<long long>(end.rss_anon),
          static_cast<long long>(anon_growth), static_cast<long long>(store_kib));
      if (!fds_back(i)) {
        qWarning("soak: %s had descriptors %s and now has %s", qPrintable(nodes_[i]->name()),
                 qPrintable(DescribeFds(f.fd_targets_at_start)),
                 qPrintable(DescribeFds(fd_targets_end[i])));
      }
      within = within && slots_end[i] == 0 && fds_back(i) && end.rss > 0 &&
               anon_growth <= kAnonGrowthBoundKib && f.rss_peak_growth_kib <= rss_bound;
    }
    std::printf(
        "{\"soak\":\"run\",\"seconds\":%d,\"chaos_s\":%.1f,\"seed\":%llu,\"client_connections\":%d,"
        "\"calls\":%.0f,\"ok\":%.0f,\"not_found\":%.0f,\"failures\":%.0f,\"failure_bound\":%.0f,"
        "\"rejections\":%.0f,\"rejection_bound\":%.0f,\"retries\":%.0f,\"restarts\":%d,"
        "\"sigkills\":%d,\"sigterms\":%d,\"drains\":%d,\"compactions\":%d,\"flushes\":%d,"
        "\"other_fd_slack\":%d,\"max_fds_per_store_file\":%d,\"anon_growth_bound_kib\":%lld}\n",
        seconds, chaos_s, static_cast<unsigned long long>(seed), kClientConnections, calls, ok,
        not_found, errors, failure_bound, rejections, rejection_bound, retries, sigkills + sigterms,
        sigkills, sigterms, drains, counts[static_cast<int>(Chaos::kCompact)],
        counts[static_cast<int>(Chaos::kFlush)], kOtherFdSlack, kMaxFdsPerStoreFile,
        static_cast<long long>(kAnonGrowthBoundKib));
    std::fflush(stdout);

    QVERIFY(calls > 0);
    QCOMPARE(calls, ok + not_found + errors + rejections);
    QVERIFY2(errors <= failure_bound, "more failed calls than the chaos explains");
    QVERIFY2(rejections <= rejection_bound, "the loads' pools refused too many calls");
    // A run of the default length sees every kind of chaos.
    if (seconds >= 30) {
      for (const Chaos kind : kAllChaos) {
        QVERIFY2(counts[static_cast<int>(kind)] > 0, ChaosName(kind));
      }
    }
    QVERIFY2(within, "a node's slots, descriptors or memory are past their bound (see above)");
  }
};

RAILYARD_QTEST_GUILESS_MAIN(SoakTest)
#include "tst_soak.moc"
