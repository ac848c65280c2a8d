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
  return state.node(node).telemetry ? state.node(node).telemetry->sequence() : 0;
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
    QVERIFY2(replay.open(path_, &error), qPrintable(error));
    const GeneratedCluster g = Small();
    QCOMPARE(replay.startMs(), g.TimeOf(0));
    QCOMPARE(replay.endMs(), g.TimeOf(kFrames - 1));
    QCOMPARE(replay.positionMs(), g.TimeOf(0));
    QCOMPARE(state.nodeCount(), 5);
    QCOMPARE(SequenceOf(state, 0), 1u);
    QCOMPARE(replay.events().size(), 3);
    QCOMPARE(replay.events()[0].kind, QString("drain"));
    QCOMPARE(replay.events()[0].node, QString("n001"));
  }

  void openRefusesWhatIsNotARecording() {
    ClusterState state;
    ReplaySource replay(&state);
    QString error;
    QVERIFY(!replay.open(dir_.filePath("missing.rec"), &error));
    QVERIFY(error.contains("missing.rec"));
    QFile junk(dir_.filePath("junk.rec"));
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.write("this is not sqlite at all, just some bytes for the header check");
    junk.close();
    QVERIFY(!replay.open(junk.fileName(), &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(!replay.isOpen());
  }

  void seekRebuildsTheStateAtThatTime() {
    ClusterState state;
    ReplaySource replay(&state);
    QVERIFY(replay.open(path_, nullptr));
    const GeneratedCluster g = Small();
    QSignalSpy reset(&state, &ClusterState::nodesReset);
    replay.seek(g.TimeOf(30) + 50);
    QCOMPARE(reset.count(), 1);
    QCOMPARE(replay.positionMs(), g.TimeOf(30) + 50);
    for (int n = 0; n < 5; ++n) {
      QCOMPARE(SequenceOf(state, n), 31u);  // Frame 30, the latest at or before.
      QCOMPARE(state.node(n).updated_ms, g.TimeOf(30));
    }
    QCOMPARE(state.node(1).health, NodeHealth::kServing);
    replay.seek(g.TimeOf(50));  // Node 1 drained from frame 33 to 65.
    QCOMPARE(state.node(1).health, NodeHealth::kLameDuck);
    // Backwards works the same way.
    replay.seek(g.TimeOf(10));
    QCOMPARE(SequenceOf(state, 3), 11u);
    QCOMPARE(state.node(1).health, NodeHealth::kServing);
    // Out of range is clamped.
    replay.seek(0);
    QCOMPARE(replay.positionMs(), replay.startMs());
    replay.seek(replay.endMs() + 100000);
    QCOMPARE(replay.positionMs(), replay.endMs());
  }

  void speedIsClusterTimePerTick() {
    ClusterState state;
    ReplaySource replay(&state);
    QVERIFY(replay.open(path_, nullptr));
    const GeneratedCluster g = Small();
    replay.setTickIntervalMs(50);
    QCOMPARE(replay.clusterMsPerTick(), 50);
    replay.seek(g.TimeOf(20));
    QSignalSpy frames(&state, &ClusterState::frameApplied);
    replay.step();
    QCOMPARE(replay.positionMs(), g.TimeOf(20) + 50);
    QCOMPARE(SequenceOf(state, 0), 21u);  // No new frame within 50 ms.
    replay.step();
    QCOMPARE(replay.positionMs(), g.TimeOf(21));
    QCOMPARE(SequenceOf(state, 0), 22u);
    QCOMPARE(frames.count(), 2);  // One frame per tick, whatever it holds.
    for (double speed : {0.5, 2.0, 4.0, 16.0}) {
      replay.setSpeed(speed);
      QCOMPARE(replay.speed(), speed);
      QCOMPARE(replay.clusterMsPerTick(), qRound64(50 * speed));
      const qint64 before = replay.positionMs();
      replay.step();
      QCOMPARE(replay.positionMs(), before + qRound64(50 * speed));
    }
    // At 16x a tick spans 8 frames; each node's latest wins, one snapshot per node applied.
    replay.seek(g.TimeOf(40));
    replay.step();
    QCOMPARE(replay.positionMs(), g.TimeOf(48));
    QCOMPARE(SequenceOf(state, 2), 49u);
    QCOMPARE(replay.lastFrameSnapshots(), 5 * 8);
    replay.setSpeed(100);
    QCOMPARE(replay.speed(), ReplaySource::kMaxSpeed);
    replay.setSpeed(0.01);
    QCOMPARE(replay.speed(), ReplaySource::kMinSpeed);
  }

  void playRunsOnTheTimerAndStopsAtTheEnd() {
    ClusterState state;
    ReplaySource replay(&state);
    QVERIFY(replay.open(path_, nullptr));
    replay.setTickIntervalMs(10);
    replay.setSpeed(16);  // 160 ms of cluster time per tick: the 10 s are ~62 ticks.
    QSignalSpy finished(&replay, &ReplaySource::finished);
    replay.play();
    QVERIFY(replay.playing());
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 20000);
    QVERIFY(!replay.playing());
    QCOMPARE(replay.positionMs(), replay.endMs());
    QCOMPARE(SequenceOf(state, 4), uint64_t(kFrames));
    replay.play();  // From the end, play starts over.
    QVERIFY(replay.positionMs() < replay.endMs());
    replay.pause();
    QVERIFY(!replay.playing());
  }

  void jumpToAnEventSeeksThere() {
    ClusterState state;
    ReplaySource replay(&state);
    QVERIFY(replay.open(path_, nullptr));
    replay.jumpToEvent(0);
    QCOMPARE(replay.positionMs(), replay.events()[0].unix_ms);
    QCOMPARE(state.node(1).health, NodeHealth::kLameDuck);
    replay.jumpToEvent(2);  // The undrain.
    QCOMPARE(replay.events()[2].kind, QString("undrain"));
    QCOMPARE(state.node(1).health, NodeHealth::kServing);
    replay.jumpToEvent(7);  // No such event: nothing moves.
    QCOMPARE(replay.positionMs(), replay.events()[2].unix_ms);
  }

  void theTimelineDrivesTheReplay() {
    ClusterState state;
    ReplaySource replay(&state);
    QVERIFY(replay.open(path_, nullptr));
    TimelineWidget timeline(&replay);
    timeline.resize(800, 200);
    timeline.show();
    QCOMPARE(timeline.eventList()->count(), 3);
    QCOMPARE(timeline.slider()->maximum(), int((replay.endMs() - replay.startMs()) / 100));
    // Dragging: the slider moves, then is released.
    timeline.slider()->setSliderDown(true);
    timeline.slider()->setSliderPosition(50);
    timeline.slider()->setSliderDown(false);
    QTRY_COMPARE_WITH_TIMEOUT(replay.positionMs(), replay.startMs() + 5000, 5000);
    // The speed box sets the speed.
    timeline.speedBox()->setCurrentIndex(timeline.speedBox()->findData(8.0));
    QCOMPARE(replay.speed(), 8.0);
    // Activating an event jumps to it.
    Q_EMIT timeline.eventList()->itemActivated(timeline.eventList()->item(1));
    QCOMPARE(replay.positionMs(), replay.events()[1].unix_ms);
    // Playback moves the slider.
    replay.step();
    QCOMPARE(timeline.slider()->value(), int((replay.positionMs() - replay.startMs()) / 100));
  }

  void recorderWritesAReadableRecordingWithActions() {
    const GeneratedCluster g = Small();
    ClusterState state;
    for (int n = 0; n < g.nodes; ++n) {
      state.addNode(QString("10.0.0.%1:7001").arg(n), QString::fromStdString(g.NodeName(n)));
    }
    Recorder recorder(&state);
    const QString out = dir_.filePath("recorded.rec");
    QString error;
    QVERIFY2(recorder.start(out, &error), qPrintable(error));
    QVERIFY(recorder.recording());
    for (int f = 0; f < 4; ++f) {
      std::vector<ClusterState::Update> updates;
      for (int n = 0; n < g.nodes; ++n) {
        updates.push_back(
            {n, std::make_shared<const railyard::admin::Telemetry>(g.Telemetry(n, f))});
      }
      state.applyFrame(updates, g.TimeOf(f));
      state.tick(g.TimeOf(f) + 50);  // No new telemetry: nothing more is written.
    }
    railyard::admin::CommandEvent action;
    action.set_unix_ms(g.TimeOf(3) + 10);
    action.set_command("drain");
    action.set_detail("n002 (10.0.0.2:7001)");
    action.set_by("operator@console");
    action.set_result("OK");
    recorder.recordAction(action);
    QCOMPARE(recorder.stop(), QString());
    QVERIFY(!recorder.recording());

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
    QVERIFY(replay.open(out, &error));
    replay.seek(replay.endMs());
    QCOMPARE(replayed.nodeCount(), g.nodes);
    QCOMPARE(SequenceOf(replayed, 4), 4u);
    QCOMPARE(replay.events().size(), 1);
  }

  void anActionIsRecordedOnItsOwnNodeWhenNamesShareAPrefix() {
    ClusterState state;
    state.addNode("10.0.0.1:7001", "node1");
    state.addNode("10.0.0.10:7001", "node10");
    Recorder recorder(&state);
    const QString out = dir_.filePath("prefix.rec");
    QString error;
    QVERIFY2(recorder.start(out, &error), qPrintable(error));
    railyard::admin::CommandEvent action;
    action.set_unix_ms(1'700'000'000'000);
    action.set_command("drain");
    action.set_detail("node10 (10.0.0.10:7001)");
    action.set_by("operator via railyard console");
    action.set_result("OK");
    recorder.recordAction(action);
    QCOMPARE(recorder.stop(), QString());

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
    QVERIFY2(replay.open(out, &error), qPrintable(error));
    QCOMPARE(state.nodeCount(), 21);  // 20 backends and the clients.
    replay.seek(replay.startMs() + 15000);
    const int backend3 = state.indexOfName("backend-3");
    QVERIFY(backend3 >= 0);
    QCOMPARE(state.node(backend3).health, NodeHealth::kServing);
    QCOMPARE(matrix.clientCount(), 50);
    for (int row = 0; row < matrix.clientCount(); ++row) {
      QCOMPARE(matrix.poolSize(row), 16);  // From the clients' own pools.
    }
    QVERIFY(!replay.events().isEmpty());
    replay.jumpToEvent(0);  // Backend 3 goes down: it stops reporting and turns stale.
    replay.setSpeed(16);
    replay.setTickIntervalMs(1000);
    replay.step();
    QCOMPARE(state.node(backend3).health, NodeHealth::kStale);
    for (int row = 0; row < matrix.clientCount(); ++row) {
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
    QVERIFY(!recorder.start(junk.fileName(), &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(!recorder.recording());
  }

 private:
  QTemporaryDir dir_;
  QString path_;
};

QTEST_MAIN(ReplayRecordTest)
#include "tst_replay_record.moc"
