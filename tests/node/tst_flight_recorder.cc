// SPDX-License-Identifier: Apache-2.0
// The flight recorder: full detail for its span, downsampled buckets before it, within its memory
// budget, paged reads, kept across a restart in real files, a damaged file set aside; and a real
// node serving it as admin.History, to a viewer, across its own restart.
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <set>

#include "core/cluster/admin_client.h"
#include "core/node/flight_recorder.h"
#include "core/node/node.h"
#include "core/trace/recording_reader.h"
#include "tests/support/admin_tokens.h"
#include "tests/support/qtest_main.h"
#include "tests/support/wait_until.h"

using railyard::admin::History;
using railyard::admin::Telemetry;
using railyard::node::FlightRecorder;
using railyard::node::FlightRecorderOptions;
using railyard::testing::kViewerToken;

namespace {

constexpr int64_t kT0 = 1'750'000'000'000;  // On a 10 s boundary.

// A serving node's snapshot at kT0 + `second` s: `requests_per_s` = second, `slots` slot entries.
Telemetry SnapshotAt(int second, int slots = 4, bool lag_known = true) {
  Telemetry t;
  t.set_node("flight");
  t.set_sequence(static_cast<uint64_t>(second) + 1);
  t.set_unix_ms(kT0 + int64_t{second} * 1000);
  t.set_state(railyard::admin::NODE_SERVING);
  t.mutable_throughput()->set_requests_per_s(second);
  for (int s = 0; s < slots; ++s) {
    railyard::admin::SlotEntry* e = t.add_slots();
    e->set_slot(static_cast<uint32_t>(s));
    e->set_client_name("client-with-a-name-long-enough-to-weigh-" + std::to_string(s));
  }
  t.mutable_replication()->set_lag_known(lag_known);
  t.mutable_replication()->set_lag_seconds(0.5 * second);
  return t;
}

FlightRecorderOptions Short(const QString& dir = {}) {
  FlightRecorderOptions o;
  o.full_span = std::chrono::minutes(1);
  o.downsampled_span = std::chrono::hours(1);
  o.bucket = std::chrono::seconds(10);
  o.dir = dir.toStdString();
  return o;
}

std::vector<int64_t> Times(const History& h) {
  std::vector<int64_t> times;
  for (const Telemetry& t : h.snapshots()) times.push_back(t.unix_ms());
  return times;
}

railyard::node::NodeOptions SmallNode(const QString& dir) {
  railyard::node::NodeOptions options;
  options.name = "flight-node";
  options.data_dir = dir.toStdString();
  options.io_threads = 1;
  options.worker_threads = 2;
  options.admin.viewer_tokens = {kViewerToken};
  options.flight.interval = std::chrono::milliseconds(20);
  return options;
}

}  // namespace

class FlightRecorderTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // A process that reports no store (a node opening it, a service of one's own) stays without
  // one in its downsampled history: an empty store would be drawn as zeros.
  void strippedSnapshotsInventNoStore() {
    Telemetry service;
    service.set_node("greeter");
    service.add_slots()->set_slot(0);
    const Telemetry stripped = FlightRecorder::Stripped(service);
    QVERIFY(!stripped.has_storage());
    QCOMPARE(stripped.slots_size(), 0);
    Telemetry node_with_store;
    node_with_store.mutable_storage()->add_bloom_pages()->set_page(3);
    node_with_store.mutable_storage()->set_reads(7);
    const Telemetry kept = FlightRecorder::Stripped(node_with_store);
    QCOMPARE(kept.storage().bloom_pages_size(), 0);
    QCOMPARE(kept.storage().reads(), uint64_t{7});
  }

  void fullDetailForItsSpanThenTenSecondBuckets() {
    std::unique_ptr<FlightRecorder> recorder;
    QVERIFY(FlightRecorder::Open(Short(), &recorder).ok());
    for (int s = 0; s < 200; ++s) recorder->Record(SnapshotAt(s, 4, /*lag_known=*/s >= 5));
    const FlightRecorder::Held held = recorder->held();
    QCOMPARE(held.full, size_t{61});  // 139 s .. 199 s: the last minute, both ends.
    QCOMPARE(held.full_from_unix_ms, kT0 + 139'000);
    QCOMPARE(held.downsampled, size_t{19});  // [0, 10) .. [180, 190) closed; [190, 200) open.
    QCOMPARE(held.from_unix_ms, kT0 + 9'000);

    const History all = recorder->Read(0, 0, FlightRecorder::kMaxPageBytes);
    QVERIFY(!all.more());
    QCOMPARE(all.held_from_unix_ms(), kT0 + 9'000);
    QCOMPARE(all.full_from_unix_ms(), kT0 + 139'000);
    // Buckets up to where full detail begins (the one ending at 139 s is inside it), then all.
    QCOMPARE(all.snapshots_size(), 13 + 61);
    const Telemetry& first = all.snapshots(0);
    QVERIFY(first.has_downsampled());
    QCOMPARE(first.unix_ms(), kT0 + 9'000);  // The bucket's last snapshot...
    QCOMPARE(first.slots_size(), 0);         // ...stripped of its slots.
    QCOMPARE(first.downsampled().from_unix_ms(), kT0);
    QCOMPARE(first.downsampled().snapshots(), 10u);
    QCOMPARE(first.downsampled().bucket_ms(), 10'000u);
    QCOMPARE(first.downsampled().requests_per_s().min(), 0.0);
    QCOMPARE(first.downsampled().requests_per_s().mean(), 4.5);
    QCOMPARE(first.downsampled().requests_per_s().max(), 9.0);
    // Lag known from 5 s on: five samples, 2.5 .. 4.5 s; unknown ones are not zeros.
    QCOMPARE(first.downsampled().lag_seconds().samples(), 5u);
    QCOMPARE(first.downsampled().lag_seconds().min(), 2.5);
    QCOMPARE(first.downsampled().lag_seconds().max(), 4.5);
    const Telemetry& full = all.snapshots(13);
    QVERIFY(!full.has_downsampled());
    QCOMPARE(full.unix_ms(), kT0 + 139'000);
    QCOMPARE(full.slots_size(), 4);
    const std::vector<int64_t> times = Times(all);
    QVERIFY(std::is_sorted(times.begin(), times.end()));
    QCOMPARE(std::set<int64_t>(times.begin(), times.end()).size(), times.size());

    // A range: only what was taken in it, ends included.
    QCOMPARE(Times(recorder->Read(kT0 + 150'000, kT0 + 152'000, 0)),
             std::vector<int64_t>({kT0 + 150'000, kT0 + 151'000, kT0 + 152'000}));
    // An older snapshot (a clock stepped back) is not kept.
    recorder->Record(SnapshotAt(100));
    QCOMPARE(recorder->held().full, size_t{61});
  }

  void theMemoryBudgetBoundsWhatIsHeld() {
    FlightRecorderOptions o = Short();
    o.full_span = std::chrono::minutes(15);
    o.memory_budget_bytes = 40'000;
    std::unique_ptr<FlightRecorder> recorder;
    QVERIFY(FlightRecorder::Open(o, &recorder).ok());
    const size_t one = SnapshotAt(0, 40).ByteSizeLong();
    QVERIFY(one > 1000);
    for (int s = 0; s < 600; ++s) recorder->Record(SnapshotAt(s, 40));
    const FlightRecorder::Held held = recorder->held();
    QVERIFY2(held.bytes <= o.memory_budget_bytes, qPrintable(QString::number(held.bytes)));
    QVERIFY(held.full > 10 && held.full < 40);
    QCOMPARE(recorder->Read(0, 0, 0).snapshots().rbegin()->unix_ms(), kT0 + 599'000);  // Now.
    // A budget smaller than one snapshot still keeps the newest.
    o.memory_budget_bytes = 100;
    QVERIFY(FlightRecorder::Open(o, &recorder).ok());
    for (int s = 0; s < 5; ++s) recorder->Record(SnapshotAt(s, 20));
    QCOMPARE(recorder->held().full, size_t{1});
  }

  void pagesCoverTheRangeOnceInOrder() {
    std::unique_ptr<FlightRecorder> recorder;
    QVERIFY(FlightRecorder::Open(Short(), &recorder).ok());
    for (int s = 0; s < 200; ++s) recorder->Record(SnapshotAt(s));
    const std::vector<int64_t> all = Times(recorder->Read(0, 0, FlightRecorder::kMaxPageBytes));
    std::vector<int64_t> paged;
    int64_t from = 0;
    int pages = 0;
    for (; pages < 1000; ++pages) {
      const History page = recorder->Read(from, 0, 2000);  // A few snapshots a page.
      QVERIFY(page.snapshots_size() >= 1);
      for (int64_t t : Times(page)) paged.push_back(t);
      if (!page.more()) break;
      QVERIFY(page.next_from_unix_ms() > from);
      from = page.next_from_unix_ms();
    }
    QVERIFY(pages > 5);
    QCOMPARE(paged, all);
    // A page smaller than one snapshot still moves on.
    QCOMPARE(recorder->Read(0, 0, 1).snapshots_size(), 1);
  }

  void keptAcrossARestartInItsFolder() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::vector<int64_t> before;
    {
      std::unique_ptr<FlightRecorder> recorder;
      QVERIFY(FlightRecorder::Open(Short(dir.path()), &recorder).ok());
      for (int s = 0; s < 45; ++s) recorder->Record(SnapshotAt(s));
      before = Times(recorder->Read(0, 0, FlightRecorder::kMaxPageBytes));
      QVERIFY(recorder->persistence().ok());
    }
    QVERIFY(QFile::exists(dir.filePath("full.rec")));
    QVERIFY(QFile::exists(dir.filePath("downsampled.rec")));
    std::unique_ptr<FlightRecorder> recorder;
    QVERIFY(FlightRecorder::Open(Short(dir.path()), &recorder).ok());
    QCOMPARE(Times(recorder->Read(0, 0, FlightRecorder::kMaxPageBytes)), before);
    QCOMPARE(recorder->held().downsampled, size_t{4});
    // Down for 100 s, then on: a gap, and the full span counted from now.
    for (int s = 145; s < 150; ++s) recorder->Record(SnapshotAt(s));
    const History after = recorder->Read(0, 0, FlightRecorder::kMaxPageBytes);
    QCOMPARE(after.full_from_unix_ms(), kT0 + 145'000);
    QCOMPARE(after.snapshots(after.snapshots_size() - 6).unix_ms(), kT0 + 39'000);  // Last bucket.
    // The folder keeps what memory keeps: the full file was trimmed to the last 5 snapshots.
    recorder.reset();
    std::unique_ptr<railyard::trace::RecordingReader> reader;
    QVERIFY(railyard::trace::RecordingReader::Open(dir.filePath("full.rec").toStdString(), &reader)
                .ok());
    uint64_t count = 0;
    QVERIFY(reader->SnapshotCount(&count).ok());
    QCOMPARE(count, uint64_t{5});
  }

  void anUnreadableFileIsSetAsideAndRecordingGoesOn() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    {
      QFile garbage(dir.filePath("full.rec"));
      QVERIFY(garbage.open(QIODevice::WriteOnly));
      garbage.write(QByteArray(8192, 'x'));
    }
    std::unique_ptr<FlightRecorder> recorder;
    const railyard::base::Status s = FlightRecorder::Open(Short(dir.path()), &recorder);
    QVERIFY2(s.ok(), s.ToString().c_str());
    QVERIFY(QFile::exists(dir.filePath("full.rec.unreadable")));
    QCOMPARE(QFile(dir.filePath("full.rec.unreadable")).size(), qint64{8192});  // Kept as it was.
    QCOMPARE(recorder->held().full, size_t{0});
    recorder->Record(SnapshotAt(0));
    QVERIFY(recorder->persistence().ok());
    QCOMPARE(recorder->held().full, size_t{1});
  }

  void aNodeServesItsHistoryToAViewerAcrossARestart() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    int64_t last_before = 0;
    {
      std::unique_ptr<railyard::node::Node> node;
      const railyard::rpc::Status opened = railyard::node::Node::Open(SmallNode(dir.path()), &node);
      QVERIFY2(opened.ok(), opened.ToString().c_str());
      railyard::cluster::AdminClient viewer(node->admin_endpoint(), kViewerToken, "tst");
      QVERIFY(viewer.Connect(std::chrono::seconds(10)).ok());
      History history;
      QVERIFY(railyard::testing::WaitUntil(
          [&] { return viewer.History(0, 0, 0, &history).ok() && history.snapshots_size() >= 5; },
          std::chrono::seconds(20), std::chrono::milliseconds(20)));
      QCOMPARE(history.snapshots(0).node(), std::string("flight-node"));
      last_before = history.snapshots(history.snapshots_size() - 1).unix_ms();
      // No token: refused like telemetry.
      railyard::cluster::AdminClient stranger(node->admin_endpoint(), "", "tst");
      QVERIFY(stranger.Connect(std::chrono::seconds(10)).ok());
      QVERIFY(!stranger.History(0, 0, 0, &history).ok());
      node->Shutdown(std::chrono::milliseconds(0));
    }
    QVERIFY(QFile::exists(dir.filePath("flight/full.rec")));
    std::unique_ptr<railyard::node::Node> node;
    const railyard::rpc::Status opened = railyard::node::Node::Open(SmallNode(dir.path()), &node);
    QVERIFY2(opened.ok(), opened.ToString().c_str());  // The store opens beside the folder.
    railyard::cluster::AdminClient viewer(node->admin_endpoint(), kViewerToken, "tst");
    QVERIFY(viewer.Connect(std::chrono::seconds(10)).ok());
    History history;
    QVERIFY(viewer.History(0, 0, 0, &history).ok());
    QVERIFY(history.snapshots_size() >= 5);
    QVERIFY(history.snapshots(0).unix_ms() <= last_before);  // What it kept before the restart.
    QVERIFY(history.held_from_unix_ms() > 0);
  }

  void aProcessWithoutARecorderSaysSo() {
    railyard::node::AdminService service({}, [] { return Telemetry(); }, {});
    QVERIFY(service.Start().ok());
    railyard::cluster::AdminClient client(service.endpoint(), "", "tst");
    QVERIFY(client.Connect(std::chrono::seconds(10)).ok());
    History history;
    const railyard::rpc::Status s = client.History(0, 0, 0, &history);
    QCOMPARE(s.code(), railyard::rpc::Code::kFailedPrecondition);
    QVERIFY2(s.message().find("no flight recorder") != std::string::npos, s.ToString().c_str());
  }
};

RAILYARD_QTEST_GUILESS_MAIN(FlightRecorderTest)
#include "tst_flight_recorder.moc"
