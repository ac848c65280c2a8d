// SPDX-License-Identifier: Apache-2.0
// A replica whose disk stalls: an updater and a replica in this process, over Boxcar on loopback,
// the replica's store on an Env whose fsyncs of segment files wait until the test lets them go.
// While the replica cannot write its previous in-memory index, the updater's queue goes on
// growing; the replica's lag must say how far behind it is (it holds an answer it has not
// applied), and its store must warn once the writes have waited. Let go, it catches up.
#include <QTemporaryDir>
#include <QTest>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "core/node/node.h"
#include "storage/env.h"
#include "storage/filenames.h"
#include "tests/support/qtest_main.h"
#include "tests/support/wait_until.h"

using namespace railyard;
using namespace std::chrono_literals;

namespace {

// POSIX, but an fsync of a segment file waits while the gate is shut.
class GatedSegmentSyncEnv final : public storage::Env {
 public:
  int Sync(const std::string& path, int fd) override {
    if (path.find(storage::kSegmentSuffix) != std::string::npos) {
      std::unique_lock lock(mu_);
      ++held_;
      open_cv_.wait(lock, [&] { return open_; });
      --held_;
    }
    return Env::Sync(path, fd);
  }
  void Shut() {
    std::lock_guard lock(mu_);
    open_ = false;
  }
  void Open() {
    {
      std::lock_guard lock(mu_);
      open_ = true;
    }
    open_cv_.notify_all();
  }
  int held() {
    std::lock_guard lock(mu_);
    return held_;
  }

 private:
  std::mutex mu_;
  std::condition_variable open_cv_;
  bool open_ = true;
  int held_ = 0;
};

// Opens the gate when it goes out of scope: declared after the nodes, so a failed check never
// leaves a node's shutdown waiting on a shut gate.
struct OpenOnExit {
  GatedSegmentSyncEnv& env;
  ~OpenOnExit() { env.Open(); }
};

class Lines {
 public:
  void Add(std::string_view line) {
    std::lock_guard lock(mu_);
    lines_.emplace_back(line);
  }
  bool Contains(std::string_view part) {
    std::lock_guard lock(mu_);
    for (const std::string& line : lines_) {
      if (line.find(part) != std::string::npos) return true;
    }
    return false;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
};

node::NodeOptions Small(const std::string& name, const QString& dir) {
  node::NodeOptions options;
  options.name = name;
  options.data_dir = dir.toStdString();
  options.io_threads = 1;
  options.worker_threads = 2;
  options.replication.tokens = {"repl-token"};
  return options;
}

uint64_t UpdaterHead(node::Node& updater) {
  return updater.Snapshot().replication().head_position();
}

bool WaitLong(const std::function<bool()>& condition) {
  return testing::WaitUntil(condition, 30s, 10ms);
}

}  // namespace

class ReplicaStallTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void aReplicaWaitingOnItsDiskShowsItsLagAndCatchesUpAfter() {
    QTemporaryDir updater_dir, replica_dir;
    std::unique_ptr<node::Node> updater;
    node::NodeOptions updater_options = Small("updater", updater_dir.path());
    updater_options.storage.seal_after = 1ms;  // Each put reaches the queue's head promptly.
    QVERIFY(node::Node::Open(updater_options, &updater).ok());

    GatedSegmentSyncEnv gate;
    Lines store_log;
    node::NodeOptions replica_options = Small("replica", replica_dir.path());
    replica_options.replication.replica = true;
    replica_options.replication.follow = updater->endpoint().ToString();
    replica_options.storage.env = &gate;
    // A small in-memory index, so a few puts freeze one and need the previous one written.
    replica_options.storage.memtable_entries = 16;
    replica_options.storage.write_stall_warning = 200ms;
    replica_options.storage.logger = [&](storage::LogLevel, std::string_view line) {
      store_log.Add(line);
    };
    std::unique_ptr<node::Node> replica;
    QVERIFY(node::Node::Open(replica_options, &replica).ok());
    OpenOnExit open_on_exit{gate};

    const std::string doc(100, 'd');
    for (uint64_t id = 1; id <= 4; ++id) QVERIFY(updater->store().Put(id, doc).ok());
    const auto caught_up = [&] {
      const admin::Replication r = replica->Snapshot().replication();
      return r.state() == admin::REPLICA_TAILING && r.lag_known() && r.lag_bytes() == 0 &&
             r.applied_position() >= UpdaterHead(*updater);
    };
    QVERIFY(WaitLong(caught_up));

    gate.Shut();
    for (uint64_t id = 10; id < 110; ++id) QVERIFY(updater->store().Put(id, doc).ok());
    // Held at a segment fsync, with an answer fetched and not applied: its lag is known, counts
    // those bytes and grows in seconds.
    admin::Replication seen;
    const bool lagging = WaitLong([&] {
      seen = replica->Snapshot().replication();
      return gate.held() > 0 && seen.lag_known() && seen.lag_bytes() > 0 &&
             seen.lag_seconds() >= 1.0;
    });
    QVERIFY2(lagging,
             (seen.DebugString() + "updater's head " + std::to_string(UpdaterHead(*updater)) +
              ", fsyncs held " + std::to_string(gate.held()))
                 .c_str());
    QVERIFY2(seen.applied_position() + seen.lag_bytes() <= UpdaterHead(*updater),
             seen.DebugString().c_str());
    QVERIFY(seen.lag_docs() > 0);
    QVERIFY(WaitLong([&] { return store_log.Contains("writes have waited 200 ms"); }));

    gate.Open();
    QVERIFY(WaitLong(caught_up));
    QCOMPARE(replica->Snapshot().replication().lag_seconds(), 0.0);
    replica->Shutdown(0ms);
    updater->Shutdown(0ms);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ReplicaStallTest)
#include "tst_replica_stall.moc"
