// SPDX-License-Identifier: Apache-2.0
// Crash safety: a writer committing every 100 ms is killed with SIGKILL; the recording opens
// cleanly, holds an unbroken prefix of what was appended, including every row appended well
// over a commit interval before the kill, and can be appended to again.
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <memory>
#include <string>
#include <vector>

#include <google/protobuf/util/message_differencer.h>

#include "core/trace/recording_reader.h"
#include "core/trace/recording_writer.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"
#include "tests/trace/status_checks.h"
#include "tests/trace/telemetry_fixture.h"

using railyard::testing::BuiltProgram;

using namespace railyard;
using namespace railyard::trace;
using google::protobuf::util::MessageDifferencer;

namespace {

constexpr int kCommitEveryMs = 100;
// Rows reported this long before the kill must have been committed: one commit interval, plus
// room for the child's scheduling and the pipe (a whole second: a loaded machine can hold a
// process back for a few hundred milliseconds, and only a lost commit should fail this).
constexpr qint64 kMustSurviveMs = kCommitEveryMs + 1000;

}  // namespace

class CrashSafetyTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void rowsCommittedBeforeSigkillSurvive() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("killed.ryrec").toStdString();
    QProcess child;
    QElapsedTimer clock;
    clock.start();
    bool ready = false;
    bool out_of_order = false;
    std::vector<qint64> reported_at;  // [n]: when "ROW n" arrived
    QByteArray pending;
    connect(&child, &QProcess::readyReadStandardOutput, this, [&] {
      pending += child.readAllStandardOutput();
      qsizetype end;
      while ((end = pending.indexOf('\n')) >= 0) {
        const QByteArray line = pending.left(end);
        pending.remove(0, end + 1);
        if (line == "READY") ready = true;
        if (line.startsWith("ROW ")) {
          // One line per row, in order, so the row number is the vector's size.
          out_of_order |= line.mid(4).toLongLong() != static_cast<qint64>(reported_at.size());
          reported_at.push_back(clock.elapsed());
        }
      }
    });
    child.start(BuiltProgram("trace_kill_writer"),
                {QString::fromStdString(path), QString::number(kCommitEveryMs)});
    QVERIFY(child.waitForStarted(10000));
    QTRY_VERIFY_WITH_TIMEOUT(ready, 30000);
    QTest::qWait(2500);  // Rows for well over kMustSurviveMs, then the kill.
    const qint64 killed_at = clock.elapsed();
    child.kill();  // SIGKILL
    QVERIFY(child.waitForFinished(5000));
    QVERIFY2(child.exitStatus() == QProcess::CrashExit, child.readAllStandardError().constData());
    QVERIFY(!out_of_order);

    size_t must_survive = 0;
    while (must_survive < reported_at.size() &&
           reported_at[must_survive] < killed_at - kMustSurviveMs) {
      ++must_survive;
    }
    QVERIFY2(must_survive > 0, "the writer reported no rows in time");

    std::unique_ptr<RecordingReader> reader;
    VERIFY_OK(RecordingReader::Open(path, &reader));
    uint64_t recovered = 0;
    auto cursor = reader->NewSnapshotCursor(0);
    for (; cursor->Valid(); cursor->Next(), ++recovered) {
      const Snapshot& s = cursor->snapshot();
      VERIFY_OK(s.status);
      // An unbroken prefix: snapshot n is the n-th appended.
      QCOMPARE(s.unix_ms, trace::testing::kKillWriterBaseMs + static_cast<int64_t>(recovered));
      QCOMPARE(s.node, trace::testing::NodeName(static_cast<int>(recovered % 3)));
      QVERIFY(MessageDifferencer::Equals(
          s.telemetry, trace::testing::MakeTelemetry(s.node, recovered / 3 + 1, s.unix_ms)));
    }
    VERIFY_OK(cursor->status());
    qInfo("%zu rows reported, %zu reported over %lld ms before the kill, %llu recovered",
          reported_at.size(), must_survive, static_cast<long long>(kMustSurviveMs),
          static_cast<unsigned long long>(recovered));
    QVERIFY2(recovered >= must_survive, "rows committed before the kill were lost");
    // The row in flight may have been committed before it was reported, never more.
    QVERIFY(recovered <= reported_at.size() + 1);
    reader.reset();

    // The killed recording takes appends again.
    std::unique_ptr<RecordingWriter> writer;
    VERIFY_OK(RecordingWriter::Create(path, WriterOptions(), &writer));
    VERIFY_OK(writer->AppendEvent(trace::testing::kKillWriterBaseMs, "node-00", "console.annotate",
                                  "recorder restarted"));
    VERIFY_OK(writer->Close());
    VERIFY_OK(RecordingReader::Open(path, &reader));
    uint64_t count = 0;
    VERIFY_OK(reader->SnapshotCount(&count));
    QCOMPARE(count, recovered);
    std::vector<Event> events;
    VERIFY_OK(reader->Events(&events));
    QCOMPARE(events.size(), size_t{1});
  }
};

RAILYARD_QTEST_GUILESS_MAIN(CrashSafetyTest)
#include "tst_crash_safety.moc"
