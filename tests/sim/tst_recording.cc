// SPDX-License-Identifier: Apache-2.0
// A simulated run written as a recording opens with core/trace's reader and holds what the
// console needs: one snapshot per live backend and one of the client pools per simulated second.
#include <QTemporaryDir>
#include <QTest>

#include "core/sim/scenario.h"
#include "core/sim/simulator.h"
#include "core/trace/latency_buckets.h"
#include "core/trace/recording.h"
#include "core/trace/recording_reader.h"
#include "core/trace/recording_writer.h"
#include "tests/support/qtest_main.h"

using namespace railyard;

namespace {

constexpr int64_t kStartUnixMs = 1'700'000'000'000;

// Simulates `scenario` (text) from kStartUnixMs into a recording at `path`; the error, or "".
std::string SimulateInto(const char* scenario, const std::string& path, sim::SimResult* result) {
  sim::Scenario s;
  sim::ParseError parse_error;
  if (!sim::ParseScenario(scenario, &s, &parse_error)) return "the scenario does not parse";
  std::unique_ptr<trace::RecordingWriter> writer;
  if (trace::Status st = trace::RecordingWriter::Create(path, {}, &writer); !st.ok()) {
    return st.ToString();
  }
  sim::SimOptions options;
  options.recording = writer.get();
  options.start_unix_ms = kStartUnixMs;
  std::string error;
  if (!sim::Simulate(s, options, result, &error)) return error;
  if (trace::Status st = writer->Close(); !st.ok()) return st.ToString();
  return "";
}

}  // namespace

class RecordingTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void recordingOpensWithExpectedNodesAndSnapshots() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("sim.rec").toStdString();
    sim::SimResult result;
    const std::string error = SimulateInto(
        "duration 10s\n"
        "clients 4 rate 100/s pool 4\n"
        "backends 3 service exp 2ms capacity 4\n"
        "at 4500ms backend 2 down\n"
        "at 6500ms backend 2 up\n"
        "at 2s backend 1 lame-duck\n",
        path, &result);
    QVERIFY2(error.empty(), error.c_str());

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
    QCOMPARE(span.first_unix_ms, int64_t{kStartUnixMs});
    QCOMPARE(span.last_unix_ms, int64_t{kStartUnixMs + 10000});

    std::vector<trace::Snapshot> at;
    QVERIFY(reader->Seek(kStartUnixMs + 3000, &at).ok());
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

  // A hung backend answers nothing, its telemetry included: it has no snapshots while it hangs
  // and its outage is recorded once as timed out (it replayed as serving before). The clients'
  // latency histogram carries every call, so a reader gets the run's own p50 and p99 (C15).
  void aHungBackendTimesOutAndTheClientsCarryTheirLatency() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("hang.rec").toStdString();
    sim::SimResult result;
    const std::string error = SimulateInto(
        "duration 8s\n"
        "clients 4 rate 200/s pool 4\n"
        "backends 3 service exp 2ms capacity 4\n"
        "at 2500ms backend 1 hang\n"
        "at 5500ms backend 1 up\n",
        path, &result);
    QVERIFY2(error.empty(), error.c_str());

    std::unique_ptr<trace::RecordingReader> reader;
    QVERIFY(trace::RecordingReader::Open(path, &reader).ok());
    std::vector<int64_t> hung_snapshots;
    admin::LatencyBuckets first, last;
    bool seen_clients = false;
    for (auto c = reader->NewSnapshotCursor(kStartUnixMs); c->Valid(); c->Next()) {
      const trace::Snapshot& snap = c->snapshot();
      QVERIFY(snap.status.ok());
      const int64_t at = snap.unix_ms - kStartUnixMs;
      if (snap.node == "backend-1" && at > 2500 && at < 5500) hung_snapshots.push_back(at);
      if (snap.node == "clients") {
        QVERIFY(snap.telemetry.throughput().has_latency_histogram());
        if (!seen_clients) first = snap.telemetry.throughput().latency_histogram();
        seen_clients = true;
        last = snap.telemetry.throughput().latency_histogram();
      }
    }
    QVERIFY2(hung_snapshots.empty(), "a hung backend reported telemetry");
    std::vector<trace::Event> events;
    QVERIFY(reader->Events(&events).ok());
    int outages = 0;
    for (const trace::Event& e : events) {
      if (e.kind != trace::kEventUnreachable) continue;
      ++outages;
      QCOMPARE(e.node, std::string("backend-1"));
      QCOMPARE(e.unix_ms - kStartUnixMs, int64_t{3000});
      QVERIFY2(e.detail.find("timed out") != std::string::npos, e.detail.c_str());
    }
    QCOMPARE(outages, 1);

    QVERIFY(seen_clients);
    QCOMPARE(first.bucket_size(), 0);  // Time 0: nothing measured yet.
    const base::LatencyHistogram run = trace::LatencyBetween(first, last);
    QVERIFY(run.count() > 0);
    QCOMPARE(QString::number(run.Percentile(0.99).count() / 1e6, 'f', 3),
             QString::number(result.p99_ms, 'f', 3));
    QCOMPARE(QString::number(run.Percentile(0.5).count() / 1e6, 'f', 3),
             QString::number(result.p50_ms, 'f', 3));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(RecordingTest)
#include "tst_recording.moc"
