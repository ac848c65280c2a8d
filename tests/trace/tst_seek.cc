// SPDX-License-Identifier: Apache-2.0
// Seek: for any time, each node's latest snapshot at or before it, in a small recording with
// hand-picked edge cases and in the hour-long 20-node recording of the seek requirement (whose
// speed bench/trace_seek_bench measures; tests never time anything).
#include <QTemporaryDir>
#include <QTest>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <google/protobuf/util/message_differencer.h>

#include "core/trace/recording_reader.h"
#include "core/trace/recording_writer.h"
#include "tests/support/qtest_main.h"
#include "tests/trace/status_checks.h"
#include "tests/trace/telemetry_fixture.h"

using namespace railyard;
using namespace railyard::trace;
using google::protobuf::util::MessageDifferencer;

namespace {

// node@unix_ms#sequence for each snapshot, e.g. "a@3000#3 b@2500#2".
std::string Describe(const std::vector<Snapshot>& snapshots) {
  std::string out;
  for (const Snapshot& s : snapshots) {
    if (!out.empty()) out += ' ';
    out += s.node + "@" + std::to_string(s.unix_ms) + "#" + std::to_string(s.sequence);
    if (!s.status.ok()) out += "!";
  }
  return out;
}

}  // namespace

class SeekTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void seekReturnsEachNodesLatestSnapshotAtOrBefore() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("seek.ryrec").toStdString();
    std::unique_ptr<RecordingWriter> writer;
    VERIFY_OK(RecordingWriter::Create(path, WriterOptions(), &writer));
    auto append = [&writer](const std::string& node, int64_t unix_ms, uint64_t sequence) {
      return writer->AppendSnapshot(node, testing::MakeTelemetry(node, sequence, unix_ms));
    };
    // a: 1000..5000 every second. b: 1500..9500 every second, plus a second snapshot at 5500
    // with a higher sequence. c: 2000, 2500, 3000, then it stops reporting.
    for (int k = 0; k < 5; ++k) VERIFY_OK(append("a", 1000 + 1000 * k, k + 1));
    for (int k = 0; k < 9; ++k) VERIFY_OK(append("b", 1500 + 1000 * k, k + 1));
    VERIFY_OK(append("b", 5500, 100));
    for (int k = 0; k < 3; ++k) VERIFY_OK(append("c", 2000 + 500 * k, k + 1));
    VERIFY_OK(writer->Close());

    std::unique_ptr<RecordingReader> reader;
    VERIFY_OK(RecordingReader::Open(path, &reader));
    const std::vector<std::pair<int64_t, std::string>> cases = {
        {std::numeric_limits<int64_t>::min(), ""},
        {999, ""},                                  // before the first snapshot
        {1000, "a@1000#1"},                         // exactly on the first
        {1499, "a@1000#1"},                         // b not yet reporting
        {2000, "a@2000#2 b@1500#1 c@2000#1"},       // exactly on a and c
        {2999, "a@2000#2 b@2500#2 c@2500#2"},       //
        {5500, "a@5000#5 b@5500#100 c@3000#3"},     // a ended, c stopped, b's tie by sequence
        {9500, "a@5000#5 b@9500#9 c@3000#3"},       // exactly on the last
        {1'000'000, "a@5000#5 b@9500#9 c@3000#3"},  // after the end
        {std::numeric_limits<int64_t>::max(), "a@5000#5 b@9500#9 c@3000#3"},
    };
    for (const auto& [unix_ms, want] : cases) {
      std::vector<Snapshot> got;
      VERIFY_OK(reader->Seek(unix_ms, &got));
      QVERIFY2(Describe(got) == want, qPrintable(QString("Seek(%1): got '%2', want '%3'")
                                                     .arg(unix_ms)
                                                     .arg(QString::fromStdString(Describe(got)))
                                                     .arg(QString::fromStdString(want))));
      for (const Snapshot& s : got) {
        QVERIFY(MessageDifferencer::Equals(s.telemetry,
                                           testing::MakeTelemetry(s.node, s.sequence, s.unix_ms)));
      }
    }
  }

  // The recording of the seek requirement: one hour of 20 nodes at 1 Hz, 72,000 snapshots.
  void seekInAnHourOfTwentyNodes() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("hour.ryrec").toStdString();
    const testing::ClusterShape shape;
    QCOMPARE(shape.TotalSnapshots(), int64_t{72'000});
    const size_t blob_bytes =
        testing::MakeTelemetry("node-00", 1, shape.start_unix_ms).ByteSizeLong();
    QVERIFY2(blob_bytes >= 1000 && blob_bytes <= 2000, qPrintable(QString::number(blob_bytes)));
    VERIFY_OK(testing::WriteClusterRecording(path, shape));

    std::unique_ptr<RecordingReader> reader;
    VERIFY_OK(RecordingReader::Open(path, &reader));
    uint64_t count = 0;
    VERIFY_OK(reader->SnapshotCount(&count));
    QCOMPARE(count, uint64_t{72'000});
    std::vector<std::string> nodes;
    VERIFY_OK(reader->Nodes(&nodes));
    QCOMPARE(nodes.size(), size_t{20});
    for (int i = 0; i < shape.nodes; ++i) QCOMPARE(nodes[i], testing::NodeName(i));
    TimeSpan span;
    VERIFY_OK(reader->Span(&span));
    QCOMPARE(span.first_unix_ms, shape.TimeOf(0, 0));
    QCOMPARE(span.last_unix_ms, shape.TimeOf(19, shape.seconds - 1));

    std::mt19937_64 rng(42);
    std::vector<int64_t> times = {span.first_unix_ms - 1, span.first_unix_ms, shape.TimeOf(7, 1234),
                                  span.last_unix_ms, span.last_unix_ms + 60'000};
    for (int i = 0; i < 20; ++i) {
      times.push_back(span.first_unix_ms +
                      static_cast<int64_t>(rng() % (span.last_unix_ms - span.first_unix_ms + 1)));
    }
    for (const int64_t t : times) {
      std::vector<Snapshot> got;
      VERIFY_OK(reader->Seek(t, &got));
      size_t next = 0;
      for (int node = 0; node < shape.nodes; ++node) {
        const int k = shape.LatestAt(node, t);
        if (k < 0) continue;
        QVERIFY2(next < got.size(), qPrintable(QString("Seek(%1): too few nodes").arg(t)));
        const Snapshot& s = got[next++];
        VERIFY_OK(s.status);
        QCOMPARE(s.node, testing::NodeName(node));
        QCOMPARE(s.unix_ms, shape.TimeOf(node, k));
        QCOMPARE(s.sequence, static_cast<uint64_t>(k) + 1);
        QVERIFY(MessageDifferencer::Equals(s.telemetry,
                                           testing::MakeTelemetry(s.node, s.sequence, s.unix_ms)));
      }
      QCOMPARE(got.size(), next);
    }
  }
};

RAILYARD_QTEST_GUILESS_MAIN(SeekTest)
#include "tst_seek.moc"
