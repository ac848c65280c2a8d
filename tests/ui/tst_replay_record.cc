// ReplaySource: positions after seeks, speed as cluster time per timer tick, events and jumps,
// the timeline's controls; Recorder: what it writes reads back, with the console's actions.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QListWidget>
#include <QProcess>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>

#include "core/trace/recording_reader.h"
#include "tests/ui/console_fixture.h"
#include "ui/models/cluster_state.h"
#include "ui/models/slot_matrix_model.h"
#include "ui/sources/recorder.h"
#include "ui/sources/replay_source.h"
#include "ui/views/timeline_widget.h"

using railyard::ui::ClusterState;
using railyard::ui::NodeHealth;
using railyard::ui::Recorder;
using railyard::ui::ReplaySource;
using railyard::ui::TimelineWidget;
using railyard::ui::testing::GeneratedCluster;

namespace {

// 5 nodes, 10 s at 10 Hz: node n's frame f is at start + 100 f, sequence f + 1.
GeneratedCluster Small() {
  GeneratedCluster g;
  g.nodes = 5;
  g.clients = 10;
  g.pool_size = 3;
  return g;
}
constexpr int kFrames = 100;

uint64_t SequenceOf(const ClusterState& state, int node) {
  return state.Node(node).telemetry ? state.Node(node).telemetry->sequence() : 0;
}

}  // namespace

class ReplayRecordTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    path_ = dir_.filePath("generated.rec");
    QVERIFY(
        railyard::ui::testing::WriteGeneratedRecording(path_.toStdString(), Small(), kFrames).ok());
  }

  void openShowsSpanNodesAndEvents() {
    ClusterState state;
    ReplaySource replay(&state);
    QString error;
    QVERIFY2(replay.Open(path_, &error), qPrintable(error));
    const GeneratedCluster g = Small();
    QCOMPARE(replay.StartMs(), g.TimeOf(0));
    QCOMPARE(replay.EndMs(), g.TimeOf(kFrames - 1));
    QCOMPARE(replay.PositionMs(), g.TimeOf(0));
    QCOMPARE(state.NodeCount(), 5);
    QCOMPARE(SequenceOf(state, 0), 1u);
    QCOMPARE(replay.Events().size(), 3);
    QCOMPARE(replay.Events()[0].kind, QString("drain"));
    QCOMPARE(replay.Events()[0].node, QString("n001"));
  }

  void openRefusesWhatIsNotARecording() {
    ClusterState state;
    ReplaySource replay(&state);
    QString error;
    QVERIFY(!replay.Open(dir_.filePath("missing.rec"), &error));
    QVERIFY(error.contains("missing.rec"));
    QFile junk(dir_.filePath("junk.rec"));
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.write("this is not sqlite at all, just some bytes for the header check");
    junk.close();
    QVERIFY(!replay.Open(junk.fileName(), &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(!replay.IsOpen());
  }

  void seekRebuildsTheStateAtThatTime() {
    ClusterState state;
    ReplaySource replay(&state);
    QVERIFY(replay.Open(path_, nullptr));
    const GeneratedCluster g = Small();
    QSignalSpy reset(&state, &ClusterState::NodesReset);
    replay.Seek(g.TimeOf(30) + 50);
    QCOMPARE(reset.count(), 1);
    QCOMPARE(replay.PositionMs(), g.TimeOf(30) + 50);
    for (int n = 0; n < 5; ++n) {
      QCOMPARE(SequenceOf(state, n), 31u);  // Frame 30, the latest at or before.
      QCOMPARE(state.Node(n).updated_ms, g.TimeOf(30));
    }
    QCOMPARE(state.Node(1).health, NodeHealth::kServing);
    replay.Seek(g.TimeOf(50));  // Node 1 drained from frame 33 to 65.
    QCOMPARE(state.Node(1).health, NodeHealth::kLameDuck);
    // Backwards works the same way.
    replay.Seek(g.TimeOf(10));
    QCOMPARE(SequenceOf(state, 3), 11u);
    QCOMPARE(state.Node(1).health, NodeHealth::kServing);
    // Out of range is clamped.
    replay.Seek(0);
    QCOMPARE(replay.PositionMs(), replay.StartMs());
    replay.Seek(replay.EndMs() + 100000);
    QCOMPARE(replay.PositionMs(), replay.EndMs());
  }

  void speedIsClusterTimePerTick() {
    ClusterState state;
    ReplaySource replay(&state);
    QVERIFY(replay.Open(path_, nullptr));
    const GeneratedCluster g = Small();
    replay.SetTickIntervalMs(50);
    QCOMPARE(replay.ClusterMsPerTick(), 50);
    replay.Seek(g.TimeOf(20));
    QSignalSpy frames(&state, &ClusterState::FrameApplied);
    replay.Step();
    QCOMPARE(replay.PositionMs(), g.TimeOf(20) + 50);
    QCOMPARE(SequenceOf(state, 0), 21u);  // No new frame within 50 ms.
    replay.Step();
    QCOMPARE(replay.PositionMs(), g.TimeOf(21));
    QCOMPARE(SequenceOf(state, 0), 22u);
    QCOMPARE(frames.count(), 2);  // One frame per tick, whatever it holds.
    for (double speed : {0.5, 2.0, 4.0, 16.0}) {
      replay.SetSpeed(speed);
      QCOMPARE(replay.Speed(), speed);
      QCOMPARE(replay.ClusterMsPerTick(), qRound64(50 * speed));
      const qint64 before = replay.PositionMs();
      replay.Step();
      QCOMPARE(replay.PositionMs(), before + qRound64(50 * speed));
    }
    // At 16x a tick spans 8 frames; each node's latest wins, one snapshot per node applied.
    replay.Seek(g.TimeOf(40));
    replay.Step();
    QCOMPARE(replay.PositionMs(), g.TimeOf(48));
    QCOMPARE(SequenceOf(state, 2), 49u);
    QCOMPARE(replay.LastFrameSnapshots(), 5 * 8);
    replay.SetSpeed(100);
    QCOMPARE(replay.Speed(), ReplaySource::kMaxSpeed);
    replay.SetSpeed(0.01);
    QCOMPARE(replay.Speed(), ReplaySource::kMinSpeed);
  }

  void playRunsOnTheTimerAndStopsAtTheEnd() {
    ClusterState state;
    ReplaySource replay(&state);
    QVERIFY(replay.Open(path_, nullptr));
    replay.SetTickIntervalMs(10);
    replay.SetSpeed(16);  // 160 ms of cluster time per tick: the 10 s are ~62 ticks.
    QSignalSpy finished(&replay, &ReplaySource::Finished);
    replay.Play();
    QVERIFY(replay.Playing());
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 20000);
    QVERIFY(!replay.Playing());
    QCOMPARE(replay.PositionMs(), replay.EndMs());
    QCOMPARE(SequenceOf(state, 4), uint64_t(kFrames));
    replay.Play();  // From the end, play starts over.
    QVERIFY(replay.PositionMs() < replay.EndMs());
    replay.Pause();
    QVERIFY(!replay.Playing());
  }

  void jumpToAnEventSeeksThere() {
    ClusterState state;
    ReplaySource replay(&state);
    QVERIFY(replay.Open(path_, nullptr));
    replay.JumpToEvent(0);
    QCOMPARE(replay.PositionMs(), replay.Events()[0].unix_ms);
    QCOMPARE(state.Node(1).health, NodeHealth::kLameDuck);
    replay.JumpToEvent(2);  // The undrain.
    QCOMPARE(replay.Events()[2].kind, QString("undrain"));
    QCOMPARE(state.Node(1).health, NodeHealth::kServing);
    replay.JumpToEvent(7);  // No such event: nothing moves.
    QCOMPARE(replay.PositionMs(), replay.Events()[2].unix_ms);
  }

  void theTimelineDrivesTheReplay() {
    ClusterState state;
    ReplaySource replay(&state);
    QVERIFY(replay.Open(path_, nullptr));
    TimelineWidget timeline(&replay);
    timeline.resize(800, 200);
    timeline.show();
    QCOMPARE(timeline.EventList()->count(), 3);
    QCOMPARE(timeline.Slider()->maximum(), int((replay.EndMs() - replay.StartMs()) / 100));
    // Dragging: the slider moves, then is released.
    timeline.Slider()->setSliderDown(true);
    timeline.Slider()->setSliderPosition(50);
    timeline.Slider()->setSliderDown(false);
    QTRY_COMPARE_WITH_TIMEOUT(replay.PositionMs(), replay.StartMs() + 5000, 5000);
    // The speed box sets the speed.
    timeline.SpeedBox()->setCurrentIndex(timeline.SpeedBox()->findData(8.0));
    QCOMPARE(replay.Speed(), 8.0);
    // Activating an event jumps to it.
    Q_EMIT timeline.EventList()->itemActivated(timeline.EventList()->item(1));
    QCOMPARE(replay.PositionMs(), replay.Events()[1].unix_ms);
    // Playback moves the slider.
    replay.Step();
    QCOMPARE(timeline.Slider()->value(), int((replay.PositionMs() - replay.StartMs()) / 100));
  }

  void recorderWritesAReadableRecordingWithActions() {
    const GeneratedCluster g = Small();
    ClusterState state;
    for (int n = 0; n < g.nodes; ++n) {
      state.AddNode(QString("10.0.0.%1:7001").arg(n), QString::fromStdString(g.NodeName(n)));
    }
    Recorder recorder(&state);
    const QString out = dir_.filePath("recorded.rec");
    QString error;
    QVERIFY2(recorder.Start(out, &error), qPrintable(error));
    QVERIFY(recorder.Recording());
    for (int f = 0; f < 4; ++f) {
      std::vector<ClusterState::Update> updates;
      for (int n = 0; n < g.nodes; ++n) {
        updates.push_back(
            {n, std::make_shared<const railyard::admin::Telemetry>(g.Telemetry(n, f))});
      }
      state.ApplyFrame(updates, g.TimeOf(f));
      state.Tick(g.TimeOf(f) + 50);  // No new telemetry: nothing more is written.
    }
    railyard::admin::CommandEvent action;
    action.set_unix_ms(g.TimeOf(3) + 10);
    action.set_command("drain");
    action.set_detail("n002 (10.0.0.2:7001)");
    action.set_by("operator@console");
    action.set_result("OK");
    recorder.RecordAction(action);
    QCOMPARE(recorder.Stop(), QString());
    QVERIFY(!recorder.Recording());

    std::unique_ptr<railyard::trace::RecordingReader> reader;
    QVERIFY(railyard::trace::RecordingReader::Open(out.toStdString(), &reader).ok());
    uint64_t count = 0;
    QVERIFY(reader->SnapshotCount(&count).ok());
    QCOMPARE(count, uint64_t(4 * g.nodes));
    std::vector<railyard::trace::Event> events;
    QVERIFY(reader->Events(&events).ok());
    QCOMPARE(events.size(), size_t{1});
    QCOMPARE(events[0].kind, std::string("drain"));
    QCOMPARE(events[0].node, std::string("n002"));
    QCOMPARE(events[0].unix_ms, g.TimeOf(3) + 10);
    QVERIFY(QString::fromStdString(events[0].detail).contains("console"));
    // And the console replays what it recorded.
    ClusterState replayed;
    ReplaySource replay(&replayed);
    QVERIFY(replay.Open(out, &error));
    replay.Seek(replay.EndMs());
    QCOMPARE(replayed.NodeCount(), g.nodes);
    QCOMPARE(SequenceOf(replayed, 4), 4u);
    QCOMPARE(replay.Events().size(), 1);
  }

  void anActionIsRecordedOnItsOwnNodeWhenNamesShareAPrefix() {
    ClusterState state;
    state.AddNode("10.0.0.1:7001", "node1");
    state.AddNode("10.0.0.10:7001", "node10");
    Recorder recorder(&state);
    const QString out = dir_.filePath("prefix.rec");
    QString error;
    QVERIFY2(recorder.Start(out, &error), qPrintable(error));
    railyard::admin::CommandEvent action;
    action.set_unix_ms(1'700'000'000'000);
    action.set_command("drain");
    action.set_detail("node10 (10.0.0.10:7001)");
    action.set_by("operator via railyard console");
    action.set_result("OK");
    recorder.RecordAction(action);
    QCOMPARE(recorder.Stop(), QString());

    std::unique_ptr<railyard::trace::RecordingReader> reader;
    QVERIFY(railyard::trace::RecordingReader::Open(out.toStdString(), &reader).ok());
    std::vector<railyard::trace::Event> events;
    QVERIFY(reader->Events(&events).ok());
    QCOMPARE(events.size(), size_t{1});
    QCOMPARE(events[0].node, std::string("node10"));
  }

  void aSimulatorRecordingReplaysTheSameWay() {
    // railyardctl sim writes the simulated cluster in the same format: backends with slot tables
    // and a "clients" process with every client's pool.
    const QString out = dir_.filePath("sim.rec");
    QProcess sim;
    sim.start(RAILYARDCTL, {"sim", RAILYARD_SCENARIOS "/02-down.scn", "--policy", "lowest-slot",
                            "--duration-s", "30", "--record", out});
    QVERIFY(sim.waitForFinished(60000));
    QVERIFY2(sim.exitCode() == 0, sim.readAllStandardError().constData());
    ClusterState state;
    railyard::ui::SlotMatrixModel matrix(&state);
    QAbstractItemModelTester tester(&matrix,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    ReplaySource replay(&state);
    QString error;
    QVERIFY2(replay.Open(out, &error), qPrintable(error));
    QCOMPARE(state.NodeCount(), 21);  // 20 backends and the clients.
    replay.Seek(replay.StartMs() + 15000);
    const int backend3 = state.IndexOfName("backend-3");
    QVERIFY(backend3 >= 0);
    QCOMPARE(state.Node(backend3).health, NodeHealth::kServing);
    QCOMPARE(matrix.ClientCount(), 50);
    for (int row = 0; row < matrix.ClientCount(); ++row) {
      QCOMPARE(matrix.PoolSize(row), 16);  // From the clients' own pools.
    }
    QVERIFY(!replay.Events().isEmpty());
    replay.JumpToEvent(0);  // Backend 3 goes down: it stops reporting and turns stale.
    replay.SetSpeed(16);
    replay.SetTickIntervalMs(1000);
    replay.Step();
    QCOMPARE(state.Node(backend3).health, NodeHealth::kStale);
    for (int row = 0; row < matrix.ClientCount(); ++row) {
      QVERIFY(matrix.cell(row, backend3).slots.isEmpty());  // Lost: nobody holds a slot there.
    }
  }

  void recorderRefusesAFileThatIsNotARecording() {
    ClusterState state;
    Recorder recorder(&state);
    QFile junk(dir_.filePath("junk2.rec"));
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.write(QByteArray(4096, 'x'));
    junk.close();
    QString error;
    QVERIFY(!recorder.Start(junk.fileName(), &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(!recorder.Recording());
  }

 private:
  QTemporaryDir dir_;
  QString path_;
};

QTEST_MAIN(ReplayRecordTest)
#include "tst_replay_record.moc"
