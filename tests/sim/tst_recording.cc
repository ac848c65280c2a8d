// SPDX-License-Identifier: Apache-2.0
// A simulated run written as a recording opens with core/trace's reader and holds what the
// console needs: one snapshot per live backend and one of the client pools per simulated second.
#include <QTemporaryDir>
#include <QTest>

#include "core/sim/scenario.h"
#include "core/sim/simulator.h"
#include "core/trace/recording.h"
#include "core/trace/recording_reader.h"
#include "core/trace/recording_writer.h"
#include "tests/support/qtest_main.h"

using namespace railyard;

class RecordingTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void recordingOpensWithExpectedNodesAndSnapshots() {
    sim::Scenario s;
    sim::ParseError parse_error;
    QVERIFY(
        sim::ParseScenario("duration 10s\n"
                           "clients 4 rate 100/s pool 4\n"
                           "backends 3 service exp 2ms capacity 4\n"
                           "at 4500ms backend 2 down\n"
                           "at 6500ms backend 2 up\n"
                           "at 2s backend 1 lame-duck\n",
                           &s, &parse_error));
    QTemporaryDir dir;
    const std::string path = dir.filePath("sim.rec").toStdString();
    std::unique_ptr<trace::RecordingWriter> writer;
    QVERIFY(trace::RecordingWriter::Create(path, {}, &writer).ok());
    sim::SimOptions options;
    options.recording = writer.get();
    options.start_unix_ms = 1'700'000'000'000;
    sim::SimResult result;
    std::string error;
    QVERIFY2(sim::Simulate(s, options, &result, &error), error.c_str());
    QVERIFY(writer->Close().ok());

    std::unique_ptr<trace::RecordingReader> reader;
    QVERIFY(trace::RecordingReader::Open(path, &reader).ok());
    std::vector<std::string> nodes;
    QVERIFY(reader->Nodes(&nodes).ok());
    QCOMPARE(nodes, (std::vector<std::string>{"backend-0", "backend-1", "backend-2", "clients"}));
    uint64_t count = 0;
    QVERIFY(reader->SnapshotCount(&count).ok());
    // Time 0 and ten ticks: 3 backends + clients each, minus backend-2's two seconds down (5 s
    // and 6 s).
    QCOMPARE(count, uint64_t{11 * 4 - 2});
    // B13: the span starts at the scenario's time 0, so its events replay at their own times.
    trace::TimeSpan span;
    QVERIFY(reader->Span(&span).ok());
    QCOMPARE(span.first_unix_ms, int64_t{1'700'000'000'000});
    QCOMPARE(span.last_unix_ms, int64_t{1'700'000'000'000 + 10000});

    std::vector<trace::Snapshot> at;
    QVERIFY(reader->Seek(1'700'000'000'000 + 3000, &at).ok());
    QCOMPARE(at.size(), size_t{4});
    for (const trace::Snapshot& snap : at) {
      QVERIFY(snap.status.ok());
      if (snap.node == "clients") {
        QCOMPARE(snap.telemetry.pools_size(), 4);
        for (const auto& pool : snap.telemetry.pools()) {
          QCOMPARE(pool.capacity(), 4u);
          QVERIFY(pool.entries_size() > 0);
          for (int i = 1; i < pool.entries_size(); ++i) {
            QVERIFY(pool.entries(i - 1).slot() <= pool.entries(i).slot());  // Best first.
          }
          QCOMPARE(pool.policy(), std::string("lowest-slot"));
        }
      } else if (snap.node == "backend-1") {
        QCOMPARE(snap.telemetry.state(), admin::NODE_LAME_DUCK);
        QCOMPARE(snap.telemetry.slots_size(), 0);  // Its clients left it.
      } else {
        QCOMPARE(snap.telemetry.state(), admin::NODE_SERVING);
        QVERIFY(snap.telemetry.slots_size() > 0);
        for (int i = 0; i < snap.telemetry.slots_size(); ++i) {
          QVERIFY(snap.telemetry.slots(i).client_name().starts_with("client-"));
        }
        QVERIFY(snap.telemetry.throughput().requests_per_s() > 0);
        // B12: the backend reports the second's latency, as a node reports its methods'.
        QCOMPARE(snap.telemetry.throughput().methods_size(), 1);
        const admin::MethodStats& m = snap.telemetry.throughput().methods(0);
        QVERIFY(m.p50_us() > 0);
        QVERIFY(m.p99_us() >= m.p50_us());
      }
    }
    std::vector<trace::Event> events;
    QVERIFY(reader->Events(&events).ok());
    QCOMPARE(events.size(), size_t{4});
    QCOMPARE(events[0].detail, std::string("backend-1 lame-duck"));
    QCOMPARE(events[1].detail, std::string("backend-2 down"));
    QCOMPARE(events[1].unix_ms - span.first_unix_ms, int64_t{4500});
    // Its outage, once, at the next snapshot round, as a recorder polling it would see it.
    QCOMPARE(events[2].node, std::string("backend-2"));
    QCOMPARE(events[2].kind, std::string(trace::kEventUnreachable));
    QCOMPARE(events[2].unix_ms - span.first_unix_ms, int64_t{5000});
  }
};

RAILYARD_QTEST_GUILESS_MAIN(RecordingTest)
#include "tst_recording.moc"
