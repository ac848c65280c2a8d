// SPDX-License-Identifier: Apache-2.0
// The compaction, Bloom and throughput models: against telemetry from a real node on loopback
// (flushes and compactions caused by real puts) and against generated telemetry with known
// figures.
#include <QAbstractItemModelTester>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QThreadPool>
#include <atomic>
#include <climits>
#include <limits>
#include <map>

#include "core/trace/recording_reader.h"
#include "core/trace/recording_writer.h"
#include "tests/support/qtest_main.h"
#include "tests/ui/storage_test_node.h"
#include "tests/ui/ui_test_support.h"
#include "ui/models/bloom_model.h"
#include "ui/models/compaction_model.h"
#include "ui/models/ring_buffer.h"
#include "ui/models/throughput_model.h"

using railyard::ui::testing::ApplySnapshot;
using namespace railyard;
using namespace railyard::ui;
using railyard::ui::testing::StorageTestNode;
using railyard::ui::testing::WaitFor;

using railyard::ui::testing::MakeTelemetry;
namespace {

using TelemetryPtr = std::shared_ptr<admin::Telemetry>;

void AddIndex(admin::Telemetry* t, uint64_t id, uint64_t entries, int64_t created_ms,
              uint64_t pages = 0, double p_no = 0) {
  admin::IndexInfo* i = t->mutable_storage()->add_indexes();
  i->set_id(id);
  i->set_entries(entries);
  i->set_bytes(entries * 20);
  i->set_created_unix_ms(created_ms);
  i->set_bloom_pages(pages);
  i->set_p_no(p_no);
}

void AddCompaction(admin::Telemetry* t, std::vector<uint64_t> inputs, uint64_t output,
                   uint64_t entries, int64_t finished_ms, bool manual) {
  admin::CompactionInfo* c = t->mutable_storage()->add_compactions();
  for (uint64_t input : inputs) c->add_inputs(input);
  c->set_output(output);
  c->set_entries_written(entries);
  c->set_bytes_written(entries * 20);
  c->set_duration_us(1500);
  c->set_manual(manual);
  c->set_finished_unix_ms(finished_ms);
}

void AddMethod(admin::Telemetry* t, const std::string& method, double rate, double p50,
               double p99) {
  admin::MethodStats* m = t->mutable_throughput()->add_methods();
  m->set_method(method);
  m->set_requests(uint64_t(rate * 10));
  m->set_requests_per_s(rate);
  m->set_p50_us(p50);
  m->set_p99_us(p99);
}

}  // namespace

class StorageModelsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // 30 minutes at 10 Hz: the newest 3 minutes at full resolution, the rest of the 15-minute
  // window at most 3 samples per 2 s bucket; a one-sample spike 13 minutes old is still there,
  // with its time, and the bucket's mean beside it.
  void throughputSeriesStayBoundedAndKeepOldSpikes() {
    const qint64 window_ms = ThroughputSeries::kCoarseSpanMs;  // 15 minutes.
    ThroughputSeries series(window_ms);
    const qint64 t0 = 1'750'000'000'000;
    const int frames = 30 * 60 * 10;
    const int spike = frames - 13 * 60 * 10 + 3;  // Mid-bucket, 13 minutes before the end.
    size_t most = 0;
    for (int f = 0; f < frames; ++f) {
      ThroughputSample s;
      s.t_ms = t0 + qint64(f) * 100;
      s.requests_per_s = f == spike ? 5000 : 100 + f % 7;
      s.p50_us = 200;
      s.p99_us = f == spike ? 90000 : 900;
      series.push_back(s);
      most = std::max(most, series.size());
    }
    const qint64 last = t0 + qint64(frames - 1) * 100;
    QCOMPARE(series.back().t_ms, last);
    QVERIFY(series.front().t_ms >= last - window_ms);
    QVERIFY(series.front().t_ms < last - window_ms + 2000);
    // 1800 full-resolution samples (and the rest of their bucket) and 3 per bucket for the other
    // 12 minutes: under 2910, where a series of every sample held 9000.
    QVERIFY2(most <= 1820 + 3 * 362, qPrintable(QString::number(most)));
    QVERIFY(most <= ThroughputSeries::Capacity(window_ms));
    QCOMPARE(series.WideBeforeMs(), std::numeric_limits<qint64>::min());  // No hours kept.
    size_t fine = 0, spikes = 0;
    for (size_t i = 0; i < series.size(); ++i) {
      if (i > 0) QVERIFY(series[i].t_ms >= series[i - 1].t_ms);  // Still in time order.
      if (series[i].t_ms > last - ThroughputSeries::kFullResolutionMs) ++fine;
      if (series[i].requests_per_s == 5000) {
        ++spikes;
        QCOMPARE(series[i].t_ms, t0 + qint64(spike) * 100);
        QCOMPARE(series[i].p99_us, 90000.0);
        // The bucket's mean is beside it: (19 ordinary samples + the spike) / 20.
        bool mean = false;
        for (size_t j = i - 2; j <= i + 2; ++j) {
          mean |= series[j].requests_per_s > 300 && series[j].requests_per_s < 400;
        }
        QVERIFY(mean);
      }
    }
    QCOMPARE(fine, size_t{1800});  // The last 3 minutes at 10 Hz, all of them.
    QCOMPARE(spikes, size_t{1});
    QVERIFY(series.DownsampledBeforeMs() <= last - ThroughputSeries::kFullResolutionMs + 2000);

    // Polling at 50 Hz does not raise the bound.
    ThroughputSeries fast(window_ms);
    for (int f = 0; f < 20 * 60 * 50; ++f) {
      fast.push_back({t0 + qint64(f) * 20, 100, 0, 0, 200, 900});
      QVERIFY(fast.size() <= ThroughputSeries::Capacity(window_ms));
    }
  }

  // A day's window (ThroughputModel's widest), 26 hours at 1 Hz: past 15 minutes at most 3
  // samples per minute, within the bound, in time order; a spike and an outage 20 hours old are
  // still there at their times; the newest 15 minutes as in a 15-minute window.
  void throughputSeriesKeepADayInMinuteBuckets() {
    ThroughputSeries series(ThroughputModel::kMaxWindowMs);
    const qint64 t0 = 1'750'000'000'000;
    const int seconds = 26 * 3600;
    const int spike = 6 * 3600 + 1234;  // 20 hours before the end.
    const int outage_from = 6 * 3600 + 2000, outage_to = 6 * 3600 + 2300;
    size_t most = 0;
    for (int i = 0; i < seconds; ++i) {
      const qint64 t = t0 + qint64(i) * 1000;
      if (i >= outage_from && i < outage_to) {
        if (i == outage_from) series.push_back(ThroughputSample::Gap(t));
        continue;
      }
      series.push_back({t, i == spike ? 9000.0 : 100.0 + i % 5, 0, 0, 200, 900});
      most = std::max(most, series.size());
    }
    const qint64 last = t0 + qint64(seconds - 1) * 1000;
    QVERIFY2(most <= ThroughputSeries::Capacity(ThroughputModel::kMaxWindowMs),
             qPrintable(QString::number(most)));
    // At most 3 a minute for 23 h 45 min (4275), 2 per 2 s bucket for 12 min (720), 180 at 1 Hz:
    // under 5200 samples where every one held 86,400.
    QVERIFY2(series.size() <= 5200, qPrintable(QString::number(series.size())));
    QVERIFY(series.front().t_ms >= last - ThroughputModel::kMaxWindowMs);
    QVERIFY(series.front().t_ms < last - ThroughputModel::kMaxWindowMs + 60000);
    QVERIFY(series.WideBeforeMs() > last - ThroughputSeries::kCoarseSpanMs - 60000);
    QVERIFY(series.WideBeforeMs() <= last - ThroughputSeries::kCoarseSpanMs);
    bool spike_kept = false, gap_kept = false;
    std::map<qint64, int> per_minute;
    for (size_t i = 0; i < series.size(); ++i) {
      const ThroughputSample& s = series[i];
      if (i > 0) QVERIFY(s.t_ms >= series[i - 1].t_ms);
      if (s.requests_per_s == 9000.0) spike_kept = s.t_ms == t0 + qint64(spike) * 1000;
      if (s.IsGap()) gap_kept = s.t_ms == t0 + qint64(outage_from) * 1000;
      if (s.t_ms < series.WideBeforeMs() && !s.IsGap()) ++per_minute[(s.t_ms - t0) / 60000];
    }
    QVERIFY(spike_kept);
    QVERIFY(gap_kept);
    for (const auto& [minute, n] : per_minute)
      QVERIFY2(n <= 3, qPrintable(QString::number(minute)));
  }

  // Series filled in step, as the model's per-node series are (their phases differ), grow their
  // storage in different frames: one frame never copies every node's samples at once.
  void throughputSeriesOfDifferentPhasesGrowInDifferentFrames() {
    std::vector<ThroughputSeries> series;
    for (int k = 0; k < 20; ++k) {
      series.emplace_back(ThroughputModel::kMaxWindowMs, k * ThroughputSeries::kBucketMs / 20);
    }
    std::vector<size_t> stored(series.size(), 0);
    int growths = 0, most_in_one_frame = 0;
    for (int f = 0; f < 20 * 60 * 10; ++f) {
      int grown = 0;
      for (size_t k = 0; k < series.size(); ++k) {
        series[k].push_back({1'750'000'000'000 + qint64(f) * 100, 100, 0, 0, 200, 900});
        if (series[k].StoredSamples() != stored[k]) ++grown;
        stored[k] = series[k].StoredSamples();
      }
      if (f == 0) continue;  // The first sample: every series allocates.
      growths += grown;
      most_in_one_frame = std::max(most_in_one_frame, grown);
    }
    QVERIFY(growths >= 20 * 6);  // Each grew several times...
    QVERIFY2(most_in_one_frame <= 2, qPrintable(QString::number(most_in_one_frame)));  // ...apart.
  }

  // The model's node series follow the same bound over 20 minutes of frames.
  void throughputModelSeriesAreBounded() {
    ClusterState state;
    ThroughputModel model(&state);
    const int node = state.AddNode("127.0.0.1:9000");
    const qint64 t0 = 1'750'000'000'000;
    for (int f = 0; f < 20 * 60 * 10; ++f) {
      TelemetryPtr t = MakeTelemetry("n", t0 + qint64(f) * 100);
      t->mutable_throughput()->set_requests_per_s(100 + f % 5);
      ApplySnapshot(state, node, t, t0 + qint64(f) * 100);
    }
    QVERIFY2(model.series(node).size() <= 1820 + 3 * 362,
             qPrintable(QString::number(model.series(node).size())));
    QVERIFY(model.series(ThroughputModel::kCluster).size() <= 1820 + 3 * 362);
  }

  // The snapshot a node's new one replaces is freed off the GUI thread (at 300 nodes that is a
  // third of the models' work per frame), and only after the new one is held.
  void replacedSnapshotsAreFreedOffTheGuiThread() {
    ClusterState state;
    ThroughputModel model(&state);
    const int node = state.AddNode("127.0.0.1:9000");
    std::atomic<QThread*> freed_on{nullptr};
    std::shared_ptr<admin::Telemetry> first(new admin::Telemetry, [&freed_on](admin::Telemetry* t) {
      freed_on = QThread::currentThread();
      delete t;
    });
    first->set_node("n");
    first->set_unix_ms(1000);
    first->set_state(admin::NODE_SERVING);
    std::weak_ptr<admin::Telemetry> watch = first;
    ApplySnapshot(state, node, std::move(first), 1000);
    ApplySnapshot(state, node, MakeTelemetry("n", 1100), 1100);
    QVERIFY(QThreadPool::globalInstance()->waitForDone(10000));
    QVERIFY(watch.expired());
    QVERIFY(freed_on.load() != nullptr);
    QVERIFY(freed_on.load() != QThread::currentThread());
    QCOMPARE(model.series(node).size(), size_t{2});
  }

  void ringBufferKeepsTheNewestInOrder() {
    RingBuffer<int> ring(5);
    for (int i = 0; i < 3; ++i) ring.push_back(i);
    QCOMPARE(ring.size(), size_t{3});
    for (int i = 3; i < 12; ++i) ring.push_back(i);
    QCOMPARE(ring.size(), size_t{5});
    for (size_t i = 0; i < 5; ++i) QCOMPARE(ring[i], int(7 + i));
    ring.pop_front();
    ring.pop_front();
    QCOMPARE(ring.front(), 9);
    QCOMPARE(ring.back(), 11);
    ring.push_back(12);
    ring.push_back(13);
    ring.push_back(14);  // Full again: 14 overwrites 10.
    QCOMPARE(ring.size(), size_t{5});
    QCOMPARE(ring.front(), 10);
    QCOMPARE(ring.back(), 14);
    ring.clear();
    QVERIFY(ring.empty());
    ring.pop_front();  // Harmless on empty.
    QVERIFY(ring.empty());
  }

  // --- Compaction -------------------------------------------------------------------------

  void compactionModelFollowsARealNode() {
    StorageTestNode node;
    QVERIFY2(node.Start(), qPrintable(node.error()));
    ClusterState state;
    CompactionModel model(&state);
    QAbstractItemModelTester tester(model.History(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy changed(&model, &CompactionModel::Changed);

    // 3000 distinct ids with a 500-entry in-memory index: six automatic flushes, with the
    // seed's compaction rule merging some of them.
    QVERIFY2(node.Put(1, 3000), qPrintable(node.error()));
    QVERIFY(node.node().store().Flush().ok());  // Waits for background work.
    const int index = node.Feed(&state);
    QVERIFY2(index >= 0, qPrintable(node.error()));
    model.SetNode(index);
    QVERIFY(model.HasData());
    QVERIFY(changed.count() >= 1);

    const admin::Telemetry& t = *state.Node(index).telemetry;
    QCOMPARE(model.Indexes().size(), t.storage().indexes_size());
    QVERIFY(model.Indexes().size() >= 1);
    for (int i = 0; i < model.Indexes().size(); ++i) {
      QCOMPARE(model.Indexes()[i].id, t.storage().indexes(i).id());
      QCOMPARE(model.Indexes()[i].entries, t.storage().indexes(i).entries());
      QVERIFY(model.Indexes()[i].age_ms >= 0);
    }
    QCOMPARE(model.TotalIndexEntries(), quint64{3000});  // Distinct ids: nothing superseded.
    QCOMPARE(model.MemtableEntries(), quint64{0});
    QCOMPARE(model.MemtableCapacity(), quint64{500});
    QVERIFY(!model.Compactions().isEmpty());
    QVERIFY(model.Compactions().front().IsFlush());
    for (int i = 1; i < model.Compactions().size(); ++i) {
      QVERIFY(model.Compactions()[i - 1].finished_unix_ms >=
              model.Compactions()[i].finished_unix_ms);
    }
    // Every entry reached disk once by a flush, and compactions rewrote some of them again.
    QCOMPARE(model.DocumentWrites(), quint64{3000});
    QCOMPARE(model.IndexEntryWrites(), t.storage().index_entry_writes());
    QVERIFY(model.IndexEntryWrites() >= 3000);
    QCOMPARE(model.WriteAmplification(), double(t.storage().index_entry_writes()) / 3000.0);
    QCOMPARE(model.ObservedWriteAmplification(), -1.0);  // Nothing written since first sight.

    // 200 more: they sit in memory.
    QVERIFY(node.Put(5001, 200));
    QVERIFY(node.Feed(&state) == index);
    QCOMPARE(model.MemtableEntries(), quint64{200});
    QCOMPARE(model.MemtableFill(), 0.4);
    QCOMPARE(model.ObservedWriteAmplification(), 0.0);
    const int compactions_before = model.Compactions().size();

    // A manual compaction of everything: one index, and a manual event naming the inputs.
    QVector<quint64> before_ids;
    for (const IndexBar& bar : model.Indexes()) before_ids.push_back(bar.id);
    QVERIFY(node.node().store().Flush().ok());
    node.Feed(&state);
    QVERIFY(model.ObservedWriteAmplification() >= 1.0);
    QVERIFY(model.Compactions().size() > compactions_before);
    if (model.Indexes().size() >= 2) {
      QVERIFY(model.AreAdjacent({model.Indexes()[1].id, model.Indexes()[0].id}));
    }
    QVERIFY(node.node().store().CompactAll().ok());
    node.Feed(&state);
    QCOMPARE(model.Indexes().size(), 1);
    QCOMPARE(model.TotalIndexEntries(), quint64{3200});
    QVERIFY(model.Compactions().front().manual);
    QCOMPARE(model.Compactions().front().output, model.Indexes().front().id);
    QVERIFY(model.Compactions().size() <= CompactionModel::kMaxCompactions);
  }

  void compactionModelOnGeneratedTelemetry() {
    ClusterState state;
    const int a = state.AddNode("127.0.0.1:1", "a");
    const int b = state.AddNode("127.0.0.1:2", "b");
    CompactionModel model(&state);
    CompactionHistoryModel* history = model.History();
    QAbstractItemModelTester tester(history,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.SetNode(a);
    QVERIFY(!model.HasData());
    QVERIFY(model.Indexes().isEmpty());

    TelemetryPtr t1 = MakeTelemetry("a", 100000);
    AddIndex(t1.get(), 7, 100, 99000);
    AddIndex(t1.get(), 5, 400, 60000);
    AddIndex(t1.get(), 3, 1600, 10000);
    AddCompaction(t1.get(), {0}, 5, 400, 59000, false);
    AddCompaction(t1.get(), {0, 4}, 6, 300, 61000, false);
    t1->mutable_storage()->set_memtable_entries(30);
    t1->mutable_storage()->set_memtable_capacity(120);
    t1->mutable_storage()->set_index_entry_writes(3000);
    t1->mutable_storage()->set_writes(1900);
    t1->mutable_storage()->set_deletes(100);
    QSignalSpy changed(&model, &CompactionModel::Changed);
    ApplySnapshot(state, a, t1, 100000);
    QCOMPARE(changed.count(), 1);
    // A frame that does not touch node a does not recompute.
    ApplySnapshot(state, b, MakeTelemetry("b", 100000), 100000);
    QCOMPARE(changed.count(), 1);

    QCOMPARE(model.Indexes().size(), 3);
    QCOMPARE(model.Indexes()[0].id, quint64{7});
    QCOMPARE(model.Indexes()[0].age_ms, qint64{1000});
    QCOMPARE(model.Indexes()[2].age_ms, qint64{90000});
    QCOMPARE(model.LargestIndexEntries(), quint64{1600});
    QCOMPARE(model.TotalIndexEntries(), quint64{2100});
    QCOMPARE(model.MemtableFill(), 0.25);
    QCOMPARE(model.WriteAmplification(), 1.5);  // 3000 / (1900 + 100)
    QCOMPARE(model.ObservedWriteAmplification(), -1.0);
    QCOMPARE(model.Compactions().size(), 2);
    QCOMPARE(model.Compactions()[0].output, quint64{6});  // Newest first.
    QCOMPARE(model.Compactions()[0].Describe(), QString("mem + #4 \u2192 #6"));
    QVERIFY(model.AreAdjacent({5, 7}));
    QVERIFY(model.AreAdjacent({3, 5, 7}));
    QVERIFY(!model.AreAdjacent({3, 7}));
    QVERIFY(!model.AreAdjacent({5, 5}));
    QVERIFY(!model.AreAdjacent({5, 99}));
    QVERIFY(!model.AreAdjacent({}));

    // The node's short history slides: events already seen are not repeated, new ones are added.
    TelemetryPtr t2 = MakeTelemetry("a", 101000);
    AddIndex(t2.get(), 8, 3000, 100500);
    AddCompaction(t2.get(), {0, 4}, 6, 300, 61000, false);
    AddCompaction(t2.get(), {7, 5, 3}, 8, 2100, 100500, true);
    t2->mutable_storage()->set_index_entry_writes(5100);
    t2->mutable_storage()->set_writes(2300);
    t2->mutable_storage()->set_deletes(100);
    QSignalSpy inserted(history, &QAbstractItemModel::rowsInserted);
    QSignalSpy reset(history, &QAbstractItemModel::modelReset);
    ApplySnapshot(state, a, t2, 101000);
    QCOMPARE(inserted.count(), 1);  // Only the new event, on top.
    QCOMPARE(inserted[0][1].toInt(), 0);
    QCOMPARE(inserted[0][2].toInt(), 0);
    QCOMPARE(reset.count(), 0);
    QCOMPARE(history->rowCount(), 3);
    QCOMPARE(history->index(0, CompactionHistoryModel::kCompactionSet).data().toString(),
             QString("#7 + #5 + #3 → #8"));
    QCOMPARE(history->index(0, CompactionHistoryModel::kKind).data().toString(), QString("manual"));
    QCOMPARE(history->index(1, CompactionHistoryModel::kKind).data().toString(), QString("flush"));
    QCOMPARE(history->index(0, CompactionHistoryModel::kEntriesWritten)
                 .data(Qt::TextAlignmentRole)
                 .value<Qt::Alignment>(),
             Qt::AlignRight | Qt::AlignVCenter);
    QCOMPARE(model.Compactions().size(), 3);
    QVERIFY(model.Compactions()[0].manual);
    QCOMPARE(model.Compactions()[0].inputs, (QVector<quint64>{7, 5, 3}));
    QCOMPARE(model.Compactions()[2].output, quint64{5});
    QCOMPARE(model.ObservedWriteAmplification(), 2100.0 / 400.0);

    // A restart resets the node's write counters: the observed figure counts from there.
    TelemetryPtr t3 = MakeTelemetry("a", 102000);
    t3->mutable_storage()->set_index_entry_writes(5100);
    t3->mutable_storage()->set_writes(10);
    ApplySnapshot(state, a, t3, 102000);
    QCOMPARE(model.ObservedWriteAmplification(), -1.0);
    QCOMPARE(model.WriteAmplification(), 510.0);  // Overstates after a restart, as documented.

    // Switching nodes starts over; clearing the cluster empties the model.
    model.SetNode(b);
    QVERIFY(model.HasData());
    QVERIFY(model.Compactions().isEmpty());
    QCOMPARE(history->rowCount(), 0);
    QCOMPARE(reset.count(), 1);
    QCOMPARE(model.MemtableFill(), 0.0);
    QCOMPARE(model.WriteAmplification(), 0.0);
    state.Clear();
    QVERIFY(!model.HasData());
    QCOMPARE(model.Node(), -1);
  }

  void compactionHistoryKeepsTheNewestInOrderUpToItsLimit() {
    ClusterState state;
    const int a = state.AddNode("127.0.0.1:1", "a");
    CompactionModel model(&state);
    CompactionHistoryModel* history = model.History();
    QAbstractItemModelTester tester(history,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.SetNode(a);
    // Frames of 200 events each, oldest first as a node reports them; two finish at the same
    // time in every frame (outputs 2k and 2k + 1), and the frames overlap by 20 events.
    const int kFrames = 4, kPerFrame = 200;
    for (int f = 0; f < kFrames; ++f) {
      TelemetryPtr t = MakeTelemetry("a", 1000000 + f);
      for (int i = 0; i < kPerFrame; ++i) {
        const int n = f * (kPerFrame - 20) + i;  // Event number: output, and its time.
        AddCompaction(t.get(), {0}, uint64_t(n), 10, 1000 + n / 2 * 2, false);
      }
      ApplySnapshot(state, a, t, 1000000 + f);
    }
    const int newest = (kFrames - 1) * (kPerFrame - 20) + kPerFrame - 1;  // 739: pairs are whole.
    QCOMPARE(history->rowCount(), CompactionHistoryModel::kMaxRows);
    for (int row = 0; row < history->rowCount(); ++row) {
      // Newest pair first; within a pair, the one the node reported first.
      const int pair = newest / 2 - row / 2;
      QCOMPARE(model.Compactions()[row].output, quint64(2 * pair + row % 2));
    }
  }

  // --- Bloom ------------------------------------------------------------------------------

  void bloomModelFollowsARealNode() {
    StorageTestNode node;
    QVERIFY2(node.Start(), qPrintable(node.error()));
    ClusterState state;
    BloomModel model(&state);
    QVERIFY(node.Put(1, 3000));
    QVERIFY(node.node().store().Flush().ok());
    // Reads of written and never-written ids give the pages recent requests; the pager re-ranks
    // every 50 ms in the background.
    QCOMPARE(node.Get(1, 1500), 1500);
    QCOMPARE(node.Get(100000, 500), 500);
    int index = -1;
    QVERIFY(WaitFor([&] {
      index = node.Feed(&state);
      for (const admin::BloomPage& p : state.Node(index).telemetry->storage().bloom_pages()) {
        if (p.recent_requests() > 0 && p.resident()) return true;
      }
      return false;
    }));
    model.SetNode(index);
    QVERIFY(model.HasData());

    const admin::StorageStats& s = state.Node(index).telemetry->storage();
    QCOMPARE(model.RowCount(), s.indexes_size());
    int widest = 0, total = 0;
    for (int r = 0; r < s.indexes_size(); ++r) {
      QCOMPARE(model.Row(r).index, s.indexes(r).id());
      QCOMPARE(model.Row(r).p_no, s.indexes(r).p_no());
      widest = std::max(widest, int(s.indexes(r).bloom_pages()));
      total += int(s.indexes(r).bloom_pages());
    }
    QCOMPARE(model.ColumnCount(), widest);
    QCOMPARE(model.TotalPages(), s.bloom_pages_size());
    QCOMPARE(model.TotalPages(), total);
    QVERIFY(model.TotalPages() > 16);  // 64-byte pages: more than the 1 KB budget holds.
    QCOMPARE(model.BudgetBytes(), quint64{1024});
    QVERIFY(model.ResidentBytes() <= model.BudgetBytes());
    QCOMPARE(quint64(model.ResidentPages()) * 64, model.ResidentBytes());
    QVERIFY(model.ResidentPages() > 0 && model.ResidentPages() < model.TotalPages());
    QVERIFY(model.BudgetUse() > 0 && model.BudgetUse() <= 1.0);
    QVERIFY(model.MaxUsefulness() > 0);

    // The pager keeps the most useful pages: no resident page is less useful than a page that
    // was left out... unless the budget could not fit it anyway (every page is the same size, so
    // it always could).
    double least_resident = 1e300, most_evicted = 0;
    for (int r = 0; r < model.RowCount(); ++r) {
      for (int c = 0; c < model.ColumnCount(); ++c) {
        const BloomCell* cell = model.Cell(r, c);
        if (!cell) continue;
        QCOMPARE(cell->index, model.Row(r).index);
        QCOMPARE(cell->page, quint32(c));
        if (cell->resident) {
          least_resident = std::min(least_resident, cell->usefulness);
        } else if (cell->p_no > 0) {
          most_evicted = std::max(most_evicted, cell->usefulness);
        }
      }
    }
    QVERIFY2(least_resident >= most_evicted * 0.5,  // Re-ranked a moment apart from the stats.
             qPrintable(QString("%1 < %2").arg(least_resident).arg(most_evicted)));
    const QString text = model.DescribeCell(0, 0);
    QVERIFY(text.contains(QString("index #%1, page 0").arg(model.Row(0).index)));
    QVERIFY(model.DescribeCell(model.RowCount(), 0).isEmpty());
  }

  void bloomModelOnGeneratedTelemetry() {
    ClusterState state;
    const int a = state.AddNode("127.0.0.1:1", "a");
    BloomModel model(&state);
    model.SetNode(a);
    QVERIFY(!model.HasData());
    QCOMPARE(model.RowCount(), 0);

    TelemetryPtr t = MakeTelemetry("a", 1000);
    AddIndex(t.get(), 9, 100, 0, 2, 0.2);
    AddIndex(t.get(), 4, 400, 0, 4, 0.8);
    auto add_page = [&](uint64_t index, uint32_t page, double requests, double p_no,
                        bool resident) {
      admin::BloomPage* p = t->mutable_storage()->add_bloom_pages();
      p->set_index(index);
      p->set_page(page);
      p->set_recent_requests(requests);
      p->set_p_no(p_no);
      p->set_usefulness(requests * p_no);
      p->set_resident(resident);
    };
    add_page(9, 0, 10, 0.2, false);
    add_page(9, 1, 20, 0.2, true);
    for (uint32_t page = 0; page < 4; ++page) add_page(4, page, 5.0 * page, 0.8, page >= 2);
    add_page(11, 0, 1, 1.0, false);  // An index the list did not mention: still shown.
    t->mutable_storage()->set_bloom_budget_bytes(4096);
    t->mutable_storage()->set_bloom_resident_bytes(3072);
    ApplySnapshot(state, a, t, 1000);

    QCOMPARE(model.RowCount(), 3);
    QCOMPARE(model.ColumnCount(), 4);
    QCOMPARE(model.Row(0).index, quint64{9});
    QCOMPARE(model.Row(1).p_no, 0.8);
    QCOMPARE(model.Row(2).index, quint64{11});
    QVERIFY(model.Cell(0, 2) == nullptr);  // Index 9 has two pages.
    QVERIFY(model.Cell(-1, 0) == nullptr);
    QVERIFY(model.Cell(0, 5) == nullptr);
    QCOMPARE(model.Cell(1, 3)->usefulness, 12.0);
    QVERIFY(model.Cell(1, 3)->resident);
    QCOMPARE(model.MaxUsefulness(), 12.0);
    QCOMPARE(model.TotalPages(), 7);
    QCOMPARE(model.ResidentPages(), 3);
    QCOMPARE(model.Row(1).ResidentPages(), 2);
    QCOMPARE(model.BudgetUse(), 0.75);
    const QString text = model.DescribeCell(0, 1);
    QVERIFY(text.contains("index #9, page 1"));
    QVERIFY(text.contains("recent requests: 20.0"));
    QVERIFY(text.contains("P(no): 0.200"));
    QVERIFY(text.contains("usefulness: 4.00"));
    QVERIFY(text.contains("resident"));
    QVERIFY(model.DescribeCell(0, 0).contains("not resident"));
  }

  // --- Recorded telemetry -----------------------------------------------------------------

  void modelsReplayARecordingAsTheyRanLive() {
    // A real node's telemetry, fed to the models live and written to a recording as the
    // recorder does; replaying the recording into fresh models gives the same picture.
    StorageTestNode node;
    QVERIFY2(node.Start(), qPrintable(node.error()));
    QTemporaryDir dir;
    const std::string path = dir.filePath("run.rec").toStdString();
    std::unique_ptr<trace::RecordingWriter> writer;
    QVERIFY(trace::RecordingWriter::Create(path, {}, &writer).ok());

    ClusterState live;
    CompactionModel live_compaction(&live);
    QAbstractItemModelTester live_tester(live_compaction.History(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    BloomModel live_bloom(&live);
    ThroughputModel live_throughput(&live);
    const int index = live.AddNode(node.adminAddress());
    live_compaction.SetNode(index);
    live_bloom.SetNode(index);
    for (int step = 0; step < 6; ++step) {
      QVERIFY(node.Put(uint64_t(step) * 1000 + 1, 600));
      QCOMPARE(node.Get(uint64_t(step) * 1000 + 1, 100), 100);
      if (step == 4) QVERIFY(node.node().store().CompactAll().ok());
      std::shared_ptr<const admin::Telemetry> t = node.Telemetry();
      QVERIFY(t);
      live.ApplyFrame({{index, t, {}}}, t->unix_ms());
      QVERIFY(writer->AppendSnapshot(t->node(), *t).ok());
    }
    QVERIFY(writer->Close().ok());

    std::unique_ptr<trace::RecordingReader> reader;
    QVERIFY(trace::RecordingReader::Open(path, &reader).ok());
    ClusterState replay;
    CompactionModel compaction(&replay);
    QAbstractItemModelTester replay_tester(compaction.History(),
                                           QAbstractItemModelTester::FailureReportingMode::QtTest);
    BloomModel bloom(&replay);
    ThroughputModel throughput(&replay);
    int frames = 0;
    auto cursor = reader->NewSnapshotCursor(0);
    for (; cursor->Valid(); cursor->Next()) {
      const trace::Snapshot& s = cursor->snapshot();
      QVERIFY(s.status.ok());
      const int n = replay.AddNode(QString::fromStdString(s.telemetry.admin_address()),
                                   QString::fromStdString(s.node));
      if (frames == 0) {
        compaction.SetNode(n);
        bloom.SetNode(n);
      }
      replay.ApplyFrame({{n, std::make_shared<admin::Telemetry>(s.telemetry), {}}}, s.unix_ms);
      ++frames;
    }
    QVERIFY(cursor->status().ok());
    QCOMPARE(frames, 6);

    QCOMPARE(compaction.Indexes().size(), live_compaction.Indexes().size());
    for (int i = 0; i < compaction.Indexes().size(); ++i) {
      QCOMPARE(compaction.Indexes()[i].id, live_compaction.Indexes()[i].id);
      QCOMPARE(compaction.Indexes()[i].entries, live_compaction.Indexes()[i].entries);
    }
    // (A flush may be under way at a snapshot: its entries are then in neither figure.)
    QCOMPARE(compaction.TotalIndexEntries(), live_compaction.TotalIndexEntries());
    QVERIFY(compaction.TotalIndexEntries() + compaction.MemtableEntries() >= 3000);
    QCOMPARE(compaction.MemtableEntries(), live_compaction.MemtableEntries());
    QCOMPARE(compaction.WriteAmplification(), live_compaction.WriteAmplification());
    QCOMPARE(compaction.ObservedWriteAmplification(), live_compaction.ObservedWriteAmplification());
    QCOMPARE(compaction.Compactions().size(), live_compaction.Compactions().size());
    QVERIFY(compaction.Compactions().size() >= 4);  // Flushes, and the manual compaction.
    QVERIFY(std::any_of(compaction.Compactions().begin(), compaction.Compactions().end(),
                        [](const CompactionEvent& e) { return e.manual; }));
    QCOMPARE(bloom.RowCount(), live_bloom.RowCount());
    QCOMPARE(bloom.TotalPages(), live_bloom.TotalPages());
    QCOMPARE(bloom.ResidentBytes(), live_bloom.ResidentBytes());
    const ThroughputModel::Series& replayed = throughput.series(0);
    const ThroughputModel::Series& watched = live_throughput.series(index);
    QCOMPARE(replayed.size(), size_t{6});
    QCOMPARE(watched.size(), size_t{6});
    for (size_t i = 0; i < replayed.size(); ++i) {
      QCOMPARE(replayed[i].t_ms, watched[i].t_ms);
      QCOMPARE(replayed[i].requests_per_s, watched[i].requests_per_s);
      QCOMPARE(replayed[i].p99_us, watched[i].p99_us);
    }
  }

  // --- Throughput -------------------------------------------------------------------------

  void throughputModelFollowsARealNode() {
    StorageTestNode node;
    QVERIFY2(node.Start(), qPrintable(node.error()));
    ClusterState state;
    ThroughputModel model(&state);
    QSignalSpy added(&model, &ThroughputModel::SamplesAdded);
    int index = -1;
    qint64 now = 1000000;
    for (int round = 0; round < 5; ++round) {
      QVERIFY(node.Put(uint64_t(round) * 1000 + 1, 200));
      QCOMPARE(node.Get(uint64_t(round) * 1000 + 1, 200), 200);
      now += 100;
      index = node.Feed(&state, now);
      QVERIFY(index >= 0);
    }
    QCOMPARE(added.count(), 5);
    const ThroughputModel::Series& s = model.series(index);
    QCOMPARE(s.size(), size_t{5});
    QCOMPARE(model.series(ThroughputModel::kCluster).size(), size_t{5});
    QCOMPARE(s.back().t_ms, now);
    QCOMPARE(model.LatestMs(), now);
    QVERIFY(s.back().requests_per_s > 0);
    QVERIFY(s.back().p50_us > 0);
    QVERIFY(s.back().p99_us >= s.back().p50_us);
    QCOMPARE(s.back().errors_per_s, 0.0);
    // One node: the cluster is that node.
    QCOMPARE(model.series(ThroughputModel::kCluster).back().requests_per_s,
             s.back().requests_per_s);
    QCOMPARE(model.series(ThroughputModel::kCluster).back().p99_us, s.back().p99_us);

    QTemporaryDir dir;
    const QString path = dir.filePath("node.csv");
    QString error;
    QVERIFY2(model.ExportWindowCsv(path, index, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 6);
    QVERIFY(lines.last().startsWith(state.Node(index).name.toUtf8() + ',' +
                                    QByteArray::number(now) + ','));
  }

  void throughputModelOnGeneratedTelemetry() {
    ClusterState state;
    state.SetStaleAfterMs(3000);
    const int a = state.AddNode("127.0.0.1:1", "a");
    const int b = state.AddNode("127.0.0.1:2", "b");
    ThroughputModel model(&state);
    QCOMPARE(model.WindowMinutes(), 5);
    QVERIFY(!model.SetWindowMinutes(2));
    QVERIFY(model.SetWindowMinutes(1));
    QCOMPARE(model.WindowMs(), qint64{60000});
    QVERIFY(model.series(a).empty());

    auto telemetry = [](const std::string& name, double rate, double errors, double p50,
                        double p99) {
      TelemetryPtr t = MakeTelemetry(name, 0);
      t->mutable_throughput()->set_requests_per_s(rate);
      t->mutable_throughput()->set_errors_per_s(errors);
      t->mutable_throughput()->set_rejections_per_s(errors / 2);
      AddMethod(t.get(), "doc.Get", rate * 0.75, p50, p99);
      AddMethod(t.get(), "doc.Put", rate * 0.25, p50 * 3, p99 * 2);
      return t;
    };
    const qint64 t0 = 1700000000000;
    state.ApplyFrame(
        {{a, telemetry("a", 100, 4, 100, 1000), {}}, {b, telemetry("b", 300, 0, 200, 500), {}}},
        t0);
    const ThroughputSample sa = model.series(a).back();
    QCOMPARE(sa.requests_per_s, 100.0);
    QCOMPARE(sa.p50_us, 0.75 * 100 + 0.25 * 300);  // Request-weighted over methods.
    QCOMPARE(sa.p99_us, 2000.0);                   // The worst method's tail.
    const ThroughputSample c = model.series(ThroughputModel::kCluster).back();
    QCOMPARE(c.t_ms, t0);
    QCOMPARE(c.requests_per_s, 400.0);
    QCOMPARE(c.errors_per_s, 4.0);
    QCOMPARE(c.rejections_per_s, 2.0);
    QCOMPARE(c.p99_us, 2000.0);
    QCOMPARE(c.p50_us, (100 * 150.0 + 300 * 300.0) / 400);

    // A frame that repeats node a's telemetry adds nothing for it; b's news adds a cluster
    // sample.
    std::shared_ptr<const admin::Telemetry> same = state.Node(a).telemetry;
    state.ApplyFrame({{a, same, {}}}, t0 + 100);
    QCOMPARE(model.series(a).size(), size_t{1});
    state.ApplyFrame({{b, telemetry("b", 50, 0, 200, 500), {}}}, t0 + 200);
    QCOMPARE(model.series(b).size(), size_t{2});
    QCOMPARE(model.series(ThroughputModel::kCluster).back().requests_per_s, 150.0);

    // 4 s later, a is stale and drops out of the cluster's sum.
    state.ApplyFrame({{b, telemetry("b", 60, 0, 200, 500), {}}}, t0 + 4000);
    QCOMPARE(state.Node(a).health, NodeHealth::kStale);
    QCOMPARE(model.series(ThroughputModel::kCluster).back().requests_per_s, 60.0);
    // b unreachable too: no news, yet the cluster's sum drops to nothing at once.
    state.ApplyFrame({{b, nullptr, "connection refused"}}, t0 + 4100);
    QCOMPARE(model.series(b).size(), size_t{4});  // Its figures end in a gap (docs/figures.md).
    QVERIFY(model.series(b).back().IsGap());
    QCOMPARE(model.series(b).back().t_ms, t0 + 4100);
    QCOMPARE(model.series(ThroughputModel::kCluster).back().t_ms, t0 + 4100);
    QCOMPARE(model.series(ThroughputModel::kCluster).back().requests_per_s, 0.0);

    // 16 minutes of samples every 10 s: the last 15 minutes kept one by one (a day is kept, the
    // older part in minute buckets).
    for (int i = 1; i <= 96; ++i) {
      state.ApplyFrame({{b, telemetry("b", i, 0, 200, 500), {}}}, t0 + 4000 + i * 10000);
    }
    const qint64 last = t0 + 4000 + 96 * 10000;
    QCOMPARE(model.LatestMs(), last);
    QCOMPARE(model.series(b).front().t_ms, t0);  // Its first sample, 16 minutes before.
    QCOMPARE(model.Samples(b, last - ThroughputSeries::kCoarseSpanMs, last).size(), 91);
    const QVector<ThroughputSample> window = model.Samples(b, last - model.WindowMs(), last);
    QCOMPARE(window.size(), 7);
    QCOMPARE(window.front().requests_per_s, 90.0);
    // The same as indices, both ends included; nothing outside the samples or between two.
    const ThroughputModel::Series& series = model.series(b);
    const size_t n = series.size();
    using Indices = std::pair<size_t, size_t>;
    QCOMPARE(ThroughputModel::IndicesIn(series, last - model.WindowMs(), last), Indices(n - 7, n));
    QCOMPARE(ThroughputModel::IndicesIn(series, LLONG_MIN, LLONG_MAX), Indices(0, n));
    QCOMPARE(ThroughputModel::IndicesIn(series, last + 1, LLONG_MAX), Indices(n, n));
    QCOMPARE(ThroughputModel::IndicesIn(series, LLONG_MIN, series.front().t_ms - 1), Indices(0, 0));
    QCOMPARE(ThroughputModel::IndicesIn(series, last - 5000, last - 4000), Indices(n - 1, n - 1));
    QCOMPARE(ThroughputModel::IndicesIn(series, last, last - 10000), Indices(n - 1, n - 1));

    QTemporaryDir dir;
    QString error;
    const QString path = dir.filePath("b.csv");
    QVERIFY2(model.ExportWindowCsv(path, b, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 8);
    QCOMPARE(
        lines[0],
        QByteArray("node,time_unix_ms,requests_per_s,errors_per_s,rejections_per_s,p50_us,p99_us"));
    QCOMPARE(lines[1], state.Node(b).name.toUtf8() + "," + QByteArray::number(last - 60000) +
                           ",90,0,0,300,1000");
    QVERIFY(!model.ExportWindowCsv(dir.filePath("missing/dir/b.csv"), b, &error));
    QVERIFY(error.contains("cannot write"));

    // A replay seek backwards restarts the series; clearing the cluster empties them all.
    state.ApplyFrame({{b, telemetry("b", 7, 0, 200, 500), {}}}, t0);
    QCOMPARE(model.series(b).size(), size_t{1});
    QSignalSpy cleared(&model, &ThroughputModel::Cleared);
    state.Clear();
    QCOMPARE(cleared.count(), 1);
    QVERIFY(model.series(ThroughputModel::kCluster).empty());
    QVERIFY(model.series(b).empty());
  }
};

RAILYARD_QTEST_GUILESS_MAIN(StorageModelsTest)
#include "tst_storage_models.moc"
