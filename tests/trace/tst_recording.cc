// SPDX-License-Identifier: Apache-2.0
// Recordings: what is written reads back identically and in playback order, writes are batched
// into commits as configured, and files that are not recordings, or rows that do not parse, give
// clear errors.
#include <sqlite3.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <google/protobuf/util/message_differencer.h>

#include "core/trace/latency_buckets.h"
#include "core/trace/recording_reader.h"
#include "core/trace/recording_writer.h"
#include "tests/support/qtest_main.h"
#include "tests/trace/status_checks.h"
#include "tests/trace/telemetry_fixture.h"

using namespace railyard;
using namespace railyard::trace;
using google::protobuf::util::MessageDifferencer;

namespace {

constexpr int64_t kT0 = 1'700'000'000'000;

std::string PathIn(const QTemporaryDir& dir, const char* name) {
  return dir.filePath(name).toStdString();
}

// Runs `sql` on the file with sqlite3 itself; returns an error message, or "" on success.
std::string RawExec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open(path.c_str(), &db);
  std::string error;
  if (rc == SQLITE_OK) {
    char* message = nullptr;
    rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
    if (rc != SQLITE_OK) error = message != nullptr ? message : "sqlite3_exec failed";
    sqlite3_free(message);
  } else {
    error = sqlite3_errstr(rc);
  }
  sqlite3_close(db);
  return error;
}

QByteArray ReadFile(const std::string& path) {
  QFile file(QString::fromStdString(path));
  if (!file.open(QIODevice::ReadOnly)) return {};
  return file.readAll();
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

WriterOptions TestOptions() {
  WriterOptions options;
  options.writer = "tst_trace_recording";
  return options;
}

struct ExpectedSnapshot {
  std::string node;
  int64_t unix_ms;
  uint64_t sequence;
  admin::Telemetry telemetry;
};

}  // namespace

class RecordingTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The console's recorder and `railyardctl record` write a node's commands as one text.
  void nodeCommandEventDetailSaysWhoWhatAndTheAnswer() {
    railyard::admin::CommandEvent compact;
    compact.set_by("railyardctl at 127.0.0.1:40000");
    compact.set_detail(" indexes 12,13");
    compact.set_result("OK");
    QCOMPARE(railyard::trace::NodeCommandEventDetail(compact),
             std::string("railyardctl at 127.0.0.1:40000 indexes 12,13 -> OK"));
    railyard::admin::CommandEvent drain;
    drain.set_by("railyard at 127.0.0.1:40001");
    drain.set_result("FAILED_PRECONDITION: admin.Drain needs an operator token");
    QCOMPARE(railyard::trace::NodeCommandEventDetail(drain),
             std::string("railyard at 127.0.0.1:40001 -> FAILED_PRECONDITION: admin.Drain needs "
                         "an operator token"));
  }

  void roundTripKeepsContentsAndPlaybackOrder() {
    QTemporaryDir dir;
    const std::string path = PathIn(dir, "round.ryrec");
    WriterOptions options = TestOptions();
    options.commit_every_rows = 64;  // Several commits along the way.
    std::unique_ptr<RecordingWriter> writer;
    VERIFY_OK(RecordingWriter::Create(path, options, &writer));
    QCOMPARE(writer->info().format_version, kFormatVersion);

    // Each tick charlie reports first but 250 ms later; alpha and bravo report at the same
    // millisecond, bravo first, so playback has to order the tie by node.
    std::vector<ExpectedSnapshot> snapshots;
    for (int k = 0; k < 100; ++k) {
      for (const char* node : {"charlie", "bravo", "alpha"}) {
        const int64_t unix_ms = kT0 + 1000LL * k + (node[0] == 'c' ? 250 : 0);
        const admin::Telemetry telemetry = testing::MakeTelemetry(node, k + 1, unix_ms);
        VERIFY_OK(writer->AppendSnapshot(node, telemetry));
        snapshots.push_back({node, unix_ms, static_cast<uint64_t>(k + 1), telemetry});
      }
    }
    // Events out of time order, with a tie that must keep its append order.
    const std::vector<Event> appended_events = {
        {kT0 + 90'000, "bravo", std::string(kEventUndrain), ""},
        {kT0 + 500, "bravo", std::string(kEventDrain), "maintenance window"},
        {kT0 + 500, "bravo", "console.annotate", "drained by hand"},
        {kT0 + 40'000, "alpha", std::string(kEventCompact), "indexes 3,4"},
        {kT0 - 2'000, "charlie", std::string(kEventFlush), ""},
    };
    for (const Event& e : appended_events) {
      VERIFY_OK(writer->AppendEvent(e.unix_ms, e.node, e.kind, e.detail));
    }
    // A workload with many ties, appended out of time order, and extreme unsigned values.
    std::mt19937_64 rng(7);
    std::vector<WorkloadOp> workload;
    for (int i = 0; i < 1000; ++i) {
      WorkloadOp op;
      op.unix_ms = kT0 + static_cast<int64_t>(rng() % 400) * 250;
      op.op = static_cast<WorkloadOpKind>(rng() % 3);
      op.key = i == 0 ? std::numeric_limits<uint64_t>::max() : rng();
      op.size = op.op == WorkloadOpKind::kDelete ? 0 : rng() % 100'000;
      VERIFY_OK(writer->AppendWorkload(op.unix_ms, op.op, op.key, op.size));
      workload.push_back(op);
    }
    VERIFY_OK(writer->Close());

    std::unique_ptr<RecordingReader> reader;
    VERIFY_OK(RecordingReader::Open(path, &reader));
    QCOMPARE(reader->info().format_version, kFormatVersion);
    QCOMPARE(reader->info().writer, std::string("tst_trace_recording"));
    QVERIFY(reader->info().created_unix_ms > 0);

    uint64_t count = 0;
    VERIFY_OK(reader->SnapshotCount(&count));
    QCOMPARE(count, uint64_t{300});
    std::vector<std::string> nodes;
    VERIFY_OK(reader->Nodes(&nodes));
    QCOMPARE(nodes, (std::vector<std::string>{"alpha", "bravo", "charlie"}));
    TimeSpan span;
    VERIFY_OK(reader->Span(&span));
    int64_t last = kT0 + 99'250;  // charlie's last snapshot, unless the workload goes on longer
    for (const WorkloadOp& op : workload) last = std::max(last, op.unix_ms);
    QCOMPARE(span.first_unix_ms, kT0 - 2'000);  // the flush event
    QCOMPARE(span.last_unix_ms, last);

    std::vector<Event> events;
    VERIFY_OK(reader->Events(&events));
    const std::vector<int> event_order = {4, 1, 2, 3, 0};
    QCOMPARE(events.size(), event_order.size());
    for (size_t i = 0; i < events.size(); ++i) {
      const Event& want = appended_events[event_order[i]];
      QCOMPARE(events[i].unix_ms, want.unix_ms);
      QCOMPARE(events[i].node, want.node);
      QCOMPARE(events[i].kind, want.kind);
      QCOMPARE(events[i].detail, want.detail);
    }
    VERIFY_OK(reader->EventsBetween(kT0, kT0 + 40'000, &events));
    QCOMPARE(events.size(), size_t{3});

    // Playback order: time, then node, then sequence.
    std::stable_sort(snapshots.begin(), snapshots.end(), [](const auto& a, const auto& b) {
      return std::tie(a.unix_ms, a.node) < std::tie(b.unix_ms, b.node);
    });
    for (const int64_t from : {std::numeric_limits<int64_t>::min(), kT0 + 50'000, kT0 + 50'001}) {
      auto want = std::find_if(snapshots.begin(), snapshots.end(),
                               [from](const auto& s) { return s.unix_ms >= from; });
      auto cursor = reader->NewSnapshotCursor(from);
      for (; cursor->Valid(); cursor->Next(), ++want) {
        QVERIFY(want != snapshots.end());
        const Snapshot& got = cursor->snapshot();
        VERIFY_OK(got.status);
        QCOMPARE(got.node, want->node);
        QCOMPARE(got.unix_ms, want->unix_ms);
        QCOMPARE(got.sequence, want->sequence);
        QVERIFY(MessageDifferencer::Equals(got.telemetry, want->telemetry));
      }
      VERIFY_OK(cursor->status());
      QVERIFY(want == snapshots.end());
    }
    QVERIFY(!reader->NewSnapshotCursor(kT0 + 100'000)->Valid());

    // Workload: time order, ties in append order.
    std::stable_sort(workload.begin(), workload.end(),
                     [](const auto& a, const auto& b) { return a.unix_ms < b.unix_ms; });
    for (const int64_t from : {std::numeric_limits<int64_t>::min(), kT0 + 50'000}) {
      auto want = std::find_if(workload.begin(), workload.end(),
                               [from](const auto& op) { return op.unix_ms >= from; });
      auto cursor = reader->NewWorkloadCursor(from);
      for (; cursor->Valid(); cursor->Next(), ++want) {
        QVERIFY(want != workload.end());
        const WorkloadOp& got = cursor->op();
        VERIFY_OK(got.status);
        QCOMPARE(got.unix_ms, want->unix_ms);
        QVERIFY(got.op == want->op);
        QCOMPARE(got.key, want->key);
        QCOMPARE(got.size, want->size);
      }
      VERIFY_OK(cursor->status());
      QVERIFY(want == workload.end());
    }
  }

  void emptyRecordingHasNoSpan() {
    QTemporaryDir dir;
    const std::string path = PathIn(dir, "empty.ryrec");
    std::unique_ptr<RecordingWriter> writer;
    VERIFY_OK(RecordingWriter::Create(path, TestOptions(), &writer));
    VERIFY_OK(writer->Close());
    std::unique_ptr<RecordingReader> reader;
    VERIFY_OK(RecordingReader::Open(path, &reader));
    TimeSpan span;
    QVERIFY(reader->Span(&span).IsNotFound());
    std::vector<Snapshot> snapshots;
    VERIFY_OK(reader->Seek(kT0, &snapshots));
    QVERIFY(snapshots.empty());
    QVERIFY(!reader->NewSnapshotCursor(0)->Valid());
    QVERIFY(!reader->NewWorkloadCursor(0)->Valid());
  }

  void reopeningAppendsAndKeepsTheMeta() {
    QTemporaryDir dir;
    const std::string path = PathIn(dir, "append.ryrec");
    std::unique_ptr<RecordingWriter> writer;
    VERIFY_OK(RecordingWriter::Create(path, TestOptions(), &writer));
    const RecordingInfo first = writer->info();
    for (int k = 0; k < 5; ++k) {
      VERIFY_OK(writer->AppendSnapshot("a", testing::MakeTelemetry("a", k + 1, kT0 + k)));
    }
    VERIFY_OK(writer->AppendEvent(kT0, "a", kEventDrain, ""));
    VERIFY_OK(writer->Close());

    WriterOptions again = TestOptions();
    again.writer = "someone else";
    VERIFY_OK(RecordingWriter::Create(path, again, &writer));
    QCOMPARE(writer->info().created_unix_ms, first.created_unix_ms);
    QCOMPARE(writer->info().writer, first.writer);
    for (int k = 5; k < 10; ++k) {
      VERIFY_OK(writer->AppendSnapshot("a", testing::MakeTelemetry("a", k + 1, kT0 + k)));
    }
    VERIFY_OK(writer->Close());

    std::unique_ptr<RecordingReader> reader;
    VERIFY_OK(RecordingReader::Open(path, &reader));
    QCOMPARE(reader->info().writer, std::string("tst_trace_recording"));
    uint64_t count = 0;
    VERIFY_OK(reader->SnapshotCount(&count));
    QCOMPARE(count, uint64_t{10});
    std::vector<Event> events;
    VERIFY_OK(reader->Events(&events));
    QCOMPARE(events.size(), size_t{1});

    WriterOptions exclusive = TestOptions();
    exclusive.error_if_exists = true;
    const Status status = RecordingWriter::Create(path, exclusive, &writer);
    QVERIFY2(status.IsInvalidArgument(), status.ToString().c_str());
    QVERIFY(writer == nullptr);
  }

  // C16: a replay lists the nodes as the recorder showed them (the console's rows, a cluster
  // file's order), so each keeps its row and colour; nodes it did not list come after, by name.
  void nodesInOrderFollowTheRecordersOrder() {
    QTemporaryDir dir;
    const std::string path = PathIn(dir, "order.ryrec");
    std::unique_ptr<RecordingWriter> writer;
    VERIFY_OK(RecordingWriter::Create(path, TestOptions(), &writer));
    for (const char* node : {"updater", "replica1", "replica2", "load", "zeta", "alpha"}) {
      VERIFY_OK(writer->AppendSnapshot(node, testing::MakeTelemetry(node, 1, kT0)));
    }
    std::unique_ptr<RecordingReader> reader;
    VERIFY_OK(writer->Commit());
    VERIFY_OK(RecordingReader::Open(path, &reader));
    std::vector<std::string> nodes;
    // No order written (an older recording, the simulator's): by name.
    VERIFY_OK(reader->NodesInOrder(&nodes));
    QCOMPARE(nodes, (std::vector<std::string>{"alpha", "load", "replica1", "replica2", "updater",
                                              "zeta"}));
    reader.reset();

    // A later order replaces the first; a listed node without snapshots is left out.
    VERIFY_OK(writer->SetNodeOrder({"load", "updater", "replica1"}));
    VERIFY_OK(writer->SetNodeOrder({"load", "updater", "never-answered", "replica2", "replica1"}));
    const Status bad = writer->SetNodeOrder({"two\nlines"});
    QVERIFY2(bad.IsInvalidArgument(), bad.ToString().c_str());
    QVERIFY(writer->SetNodeOrder({""}).IsInvalidArgument());
    VERIFY_OK(writer->Close());
    VERIFY_OK(RecordingReader::Open(path, &reader));
    VERIFY_OK(reader->NodesInOrder(&nodes));
    QCOMPARE(nodes, (std::vector<std::string>{"load", "updater", "replica2", "replica1", "alpha",
                                              "zeta"}));
    VERIFY_OK(reader->Nodes(&nodes));
    QCOMPARE(nodes.front(), std::string("alpha"));
  }

  // Cumulative histograms: the span between two snapshots is their difference, and a process
  // that restarted in between (a bucket shrank or vanished) counts from the later one alone.
  void latencyBetweenTwoSnapshotsIsTheirDifference() {
    base::LatencyHistogram run;
    for (int k = 0; k < 100; ++k) run.Add(std::chrono::milliseconds(1));
    admin::LatencyBuckets earlier, later, restarted;
    ToLatencyBuckets(run, &earlier);
    for (int k = 0; k < 50; ++k) run.Add(std::chrono::milliseconds(8));
    ToLatencyBuckets(run, &later);
    const base::LatencyHistogram span = LatencyBetween(earlier, later);
    QCOMPARE(span.count(), uint64_t{50});
    QCOMPARE(span.Percentile(0.01), std::chrono::nanoseconds(std::chrono::milliseconds(8)));
    QCOMPARE(LatencyBetween({}, later).count(), uint64_t{150});

    base::LatencyHistogram fresh;
    for (int k = 0; k < 10; ++k) fresh.Add(std::chrono::milliseconds(8));
    ToLatencyBuckets(fresh, &restarted);
    QCOMPARE(LatencyBetween(later, restarted).count(), uint64_t{10});
  }

  void readersSeeCommittedBatchesOfCommitEveryRows() {
    QTemporaryDir dir;
    const std::string path = PathIn(dir, "rows.ryrec");
    WriterOptions options = TestOptions();
    options.commit_every_rows = 10;
    options.commit_every = std::chrono::hours(1);
    std::unique_ptr<RecordingWriter> writer;
    VERIFY_OK(RecordingWriter::Create(path, options, &writer));
    std::unique_ptr<RecordingReader> reader;
    VERIFY_OK(RecordingReader::Open(path, &reader));
    for (int k = 0; k < 25; ++k) {
      VERIFY_OK(writer->AppendSnapshot("a", testing::MakeTelemetry("a", k + 1, kT0 + k)));
    }
    uint64_t count = 0;
    VERIFY_OK(reader->SnapshotCount(&count));
    QCOMPARE(count, uint64_t{20});
    VERIFY_OK(writer->Commit());
    VERIFY_OK(reader->SnapshotCount(&count));
    QCOMPARE(count, uint64_t{25});
    VERIFY_OK(writer->Commit());  // Nothing pending: a no-op.
    VERIFY_OK(writer->Close());
    VERIFY_OK(writer->Close());  // Idempotent.
    QVERIFY(!writer->AppendEvent(kT0, "a", kEventFlush, "").ok());
    QVERIFY(!writer->Commit().ok());
  }

  void anOldTransactionCommitsOnTheNextAppend() {
    QTemporaryDir dir;
    const std::string path = PathIn(dir, "interval.ryrec");
    WriterOptions options = TestOptions();
    options.commit_every_rows = 1'000'000;
    // Far longer than one append takes, even on a loaded machine: the first row stays uncommitted.
    options.commit_every = std::chrono::milliseconds(500);
    std::unique_ptr<RecordingWriter> writer;
    VERIFY_OK(RecordingWriter::Create(path, options, &writer));
    std::unique_ptr<RecordingReader> reader;
    VERIFY_OK(RecordingReader::Open(path, &reader));
    VERIFY_OK(writer->AppendWorkload(kT0, WorkloadOpKind::kPut, 1, 100));
    QVERIFY(!reader->NewWorkloadCursor(0)->Valid());
    QTest::qSleep(600);  // Longer than the interval: the next append commits both rows.
    VERIFY_OK(writer->AppendWorkload(kT0 + 1, WorkloadOpKind::kGet, 1, 100));
    int seen = 0;
    for (auto cursor = reader->NewWorkloadCursor(0); cursor->Valid(); cursor->Next()) ++seen;
    QCOMPARE(seen, 2);
  }

  // A viewer must not leave files beside a finished recording (a read-only connection on a WAL
  // database would create -wal and -shm and keep them), and must still read all of it, also
  // where the path needs escaping as a URI.
  void openingAFinishedRecordingLeavesNoWalOrShmAndReadsEverything() {
    QTemporaryDir dir;
    const std::string path = PathIn(dir, "done 100%?#.ryrec");
    {
      std::unique_ptr<RecordingWriter> writer;
      VERIFY_OK(RecordingWriter::Create(path, TestOptions(), &writer));
      for (int k = 0; k < 30; ++k) {
        VERIFY_OK(writer->AppendSnapshot("a", testing::MakeTelemetry("a", k + 1, kT0 + k)));
      }
      VERIFY_OK(writer->AppendEvent(kT0 + 5, "a", kEventDrain, "by test"));
      VERIFY_OK(writer->Close());
    }
    QVERIFY(!QFile::exists(QString::fromStdString(path + "-wal")));
    for (int round = 0; round < 2; ++round) {  // Open, read, close; then once more.
      std::unique_ptr<RecordingReader> reader;
      VERIFY_OK(RecordingReader::Open(path, &reader));
      uint64_t count = 0;
      VERIFY_OK(reader->SnapshotCount(&count));
      QCOMPARE(count, uint64_t{30});
      std::vector<Event> events;
      VERIFY_OK(reader->Events(&events));
      QCOMPARE(events.size(), size_t{1});
      int seen = 0;
      for (auto cursor = reader->NewSnapshotCursor(0); cursor->Valid(); cursor->Next()) ++seen;
      QCOMPARE(seen, 30);
      QVERIFY(!QFile::exists(QString::fromStdString(path + "-wal")));
      QVERIFY(!QFile::exists(QString::fromStdString(path + "-shm")));
    }
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"done 100%?#.ryrec"});
  }

  // While a writer has the file open, a reader still follows what it commits.
  void aReaderOpenedWhileWritingSeesLaterCommits() {
    QTemporaryDir dir;
    const std::string path = PathIn(dir, "live.ryrec");
    std::unique_ptr<RecordingWriter> writer;
    VERIFY_OK(RecordingWriter::Create(path, TestOptions(), &writer));
    VERIFY_OK(writer->AppendSnapshot("a", testing::MakeTelemetry("a", 1, kT0)));
    VERIFY_OK(writer->Commit());
    std::unique_ptr<RecordingReader> reader;
    VERIFY_OK(RecordingReader::Open(path, &reader));
    VERIFY_OK(writer->AppendSnapshot("a", testing::MakeTelemetry("a", 2, kT0 + 1)));
    VERIFY_OK(writer->Commit());
    uint64_t count = 0;
    VERIFY_OK(reader->SnapshotCount(&count));
    QCOMPARE(count, uint64_t{2});
  }

  void missingFileIsNotFound() {
    QTemporaryDir dir;
    std::unique_ptr<RecordingReader> reader;
    const Status status = RecordingReader::Open(PathIn(dir, "absent.ryrec"), &reader);
    QVERIFY2(status.IsNotFound(), status.ToString().c_str());
    QVERIFY(Contains(status.message(), "absent.ryrec"));
    QVERIFY(reader == nullptr);
  }

  void writerReportsAFileItCannotCreate() {
    QTemporaryDir dir;
    const std::string path = PathIn(dir, "no/such/folder/x.ryrec");
    std::unique_ptr<RecordingWriter> writer;
    const Status status = RecordingWriter::Create(path, TestOptions(), &writer);
    QVERIFY2(status.code() == Status::Code::kIOError, status.ToString().c_str());
    QVERIFY2(Contains(status.message(), path), status.message().c_str());
    QVERIFY(writer == nullptr);
  }

  void nonSqliteFileIsRefusedAndLeftUntouched() {
    QTemporaryDir dir;
    const std::string path = PathIn(dir, "notes.txt");
    {
      QFile file(QString::fromStdString(path));
      QVERIFY(file.open(QIODevice::WriteOnly));
      for (int i = 0; i < 200; ++i) file.write("These are an operator's notes, not a recording.\n");
    }
    const QByteArray before = ReadFile(path);

    std::unique_ptr<RecordingReader> reader;
    Status status = RecordingReader::Open(path, &reader);
    QVERIFY2(status.IsInvalidArgument(), status.ToString().c_str());
    QVERIFY2(
        Contains(status.message(), path) && Contains(status.message(), "not a SQLite database"),
        status.message().c_str());

    std::unique_ptr<RecordingWriter> writer;
    status = RecordingWriter::Create(path, TestOptions(), &writer);
    QVERIFY2(status.IsInvalidArgument(), status.ToString().c_str());
    QVERIFY2(Contains(status.message(), "not a SQLite database"), status.message().c_str());
    QCOMPARE(ReadFile(path), before);
  }

  void sqliteFileWithoutTheSchemaIsRefusedAndLeftUntouched() {
    QTemporaryDir dir;
    const std::string path = PathIn(dir, "other.db");
    QCOMPARE(RawExec(path,
                     "CREATE TABLE meta(name TEXT, value TEXT);"
                     "INSERT INTO meta VALUES('owner', 'someone else');"),
             std::string());
    const QByteArray before = ReadFile(path);

    std::unique_ptr<RecordingReader> reader;
    Status status = RecordingReader::Open(path, &reader);
    QVERIFY2(status.IsInvalidArgument(), status.ToString().c_str());
    QVERIFY2(
        Contains(status.message(), path) && Contains(status.message(), "not a Railyard recording"),
        status.message().c_str());

    std::unique_ptr<RecordingWriter> writer;
    status = RecordingWriter::Create(path, TestOptions(), &writer);
    QVERIFY2(status.IsInvalidArgument(), status.ToString().c_str());
    QCOMPARE(ReadFile(path), before);
    QVERIFY(!QFile::exists(QString::fromStdString(path + "-wal")));

    const std::string plain = PathIn(dir, "plain.db");
    QCOMPARE(RawExec(plain, "CREATE TABLE things(x);"), std::string());
    status = RecordingReader::Open(plain, &reader);
    QVERIFY2(status.IsInvalidArgument(), status.ToString().c_str());
    QVERIFY2(Contains(status.message(), "no meta table"), status.message().c_str());
  }

  void newerFormatVersionIsNotSupported() {
    QTemporaryDir dir;
    const std::string path = PathIn(dir, "future.ryrec");
    std::unique_ptr<RecordingWriter> writer;
    VERIFY_OK(RecordingWriter::Create(path, TestOptions(), &writer));
    VERIFY_OK(writer->Close());
    QCOMPARE(RawExec(path, "UPDATE meta SET value = '2' WHERE key = 'format_version'"),
             std::string());

    std::unique_ptr<RecordingReader> reader;
    Status status = RecordingReader::Open(path, &reader);
    QVERIFY2(status.IsNotSupported(), status.ToString().c_str());
    QVERIFY2(Contains(status.message(), path) && Contains(status.message(), "version 2"),
             status.message().c_str());
    status = RecordingWriter::Create(path, TestOptions(), &writer);
    QVERIFY2(status.IsNotSupported(), status.ToString().c_str());
  }

  void damagedSchemaNamesTheFileAndTheStatement() {
    QTemporaryDir dir;
    const std::string path = PathIn(dir, "damaged.ryrec");
    std::unique_ptr<RecordingWriter> writer;
    VERIFY_OK(RecordingWriter::Create(path, TestOptions(), &writer));
    VERIFY_OK(writer->Close());
    QCOMPARE(RawExec(path, "DROP TABLE events"), std::string());

    std::unique_ptr<RecordingReader> reader;
    const Status status = RecordingReader::Open(path, &reader);
    QVERIFY2(status.IsCorruption(), status.ToString().c_str());
    QVERIFY2(Contains(status.message(), path) && Contains(status.message(), "FROM events") &&
                 Contains(status.message(), "no such table: events"),
             status.message().c_str());
  }

  void garbageTelemetryIsAnErrorForItsRowOnly() {
    QTemporaryDir dir;
    const std::string path = PathIn(dir, "garbage.ryrec");
    std::unique_ptr<RecordingWriter> writer;
    VERIFY_OK(RecordingWriter::Create(path, TestOptions(), &writer));
    for (int k = 0; k < 3; ++k) {
      for (const char* node : {"a", "b", "c"}) {
        VERIFY_OK(
            writer->AppendSnapshot(node, testing::MakeTelemetry(node, k + 1, kT0 + 1000LL * k)));
      }
    }
    VERIFY_OK(writer->Close());
    const QByteArray garbage = "this is not telemetry";
    QVERIFY(!admin::Telemetry().ParseFromArray(garbage.constData(), garbage.size()));
    QCOMPARE(RawExec(path, "UPDATE snapshots SET telemetry = X'" + garbage.toHex().toStdString() +
                               "' WHERE node = 'b' AND sequence = 2"),
             std::string());

    std::unique_ptr<RecordingReader> reader;
    VERIFY_OK(RecordingReader::Open(path, &reader));
    int rows = 0;
    int bad = 0;
    auto cursor = reader->NewSnapshotCursor(0);
    for (; cursor->Valid(); cursor->Next(), ++rows) {
      const Snapshot& s = cursor->snapshot();
      if (s.node == "b" && s.sequence == 2) {
        ++bad;
        QVERIFY(s.status.IsCorruption());
        QVERIFY2(Contains(s.status.message(), path) && Contains(s.status.message(), "node 'b'") &&
                     Contains(s.status.message(), "does not parse"),
                 s.status.message().c_str());
        QCOMPARE(s.unix_ms, kT0 + 1000);
      } else {
        VERIFY_OK(s.status);
        QVERIFY(MessageDifferencer::Equals(s.telemetry,
                                           testing::MakeTelemetry(s.node, s.sequence, s.unix_ms)));
      }
    }
    VERIFY_OK(cursor->status());
    QCOMPARE(rows, 9);
    QCOMPARE(bad, 1);

    std::vector<Snapshot> at;
    VERIFY_OK(reader->Seek(kT0 + 1500, &at));
    QCOMPARE(at.size(), size_t{3});
    VERIFY_OK(at[0].status);
    QVERIFY(at[1].status.IsCorruption());
    QCOMPARE(at[1].node, std::string("b"));
    VERIFY_OK(at[2].status);
    QCOMPARE(at[2].telemetry.sequence(), uint64_t{2});
  }

  void unknownWorkloadOpIsAnErrorForItsRowOnly() {
    QTemporaryDir dir;
    const std::string path = PathIn(dir, "ops.ryrec");
    std::unique_ptr<RecordingWriter> writer;
    VERIFY_OK(RecordingWriter::Create(path, TestOptions(), &writer));
    VERIFY_OK(writer->AppendWorkload(kT0, WorkloadOpKind::kPut, 1, 10));
    VERIFY_OK(writer->AppendWorkload(kT0 + 2, WorkloadOpKind::kDelete, 1, 0));
    VERIFY_OK(writer->Close());
    QCOMPARE(
        RawExec(path, "INSERT INTO workload VALUES(" + std::to_string(kT0 + 1) + ", 'scan', 5, 0)"),
        std::string());

    std::unique_ptr<RecordingReader> reader;
    VERIFY_OK(RecordingReader::Open(path, &reader));
    std::vector<WorkloadOp> ops;
    auto cursor = reader->NewWorkloadCursor(0);
    for (; cursor->Valid(); cursor->Next()) ops.push_back(cursor->op());
    VERIFY_OK(cursor->status());
    QCOMPARE(ops.size(), size_t{3});
    VERIFY_OK(ops[0].status);
    QVERIFY(ops[1].status.IsCorruption());
    QVERIFY2(Contains(ops[1].status.message(), "'scan'"), ops[1].status.message().c_str());
    VERIFY_OK(ops[2].status);
    QVERIFY(ops[2].op == WorkloadOpKind::kDelete);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(RecordingTest)
#include "tst_recording.moc"
