// SPDX-License-Identifier: Apache-2.0
// ReplaySource: positions after seeks, speed as cluster time per timer tick, events and jumps,
// the timeline's controls; Recorder: what it writes reads back, with the console's actions.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include "core/trace/recording.h"
#include "core/trace/recording_reader.h"
#include "core/trace/recording_writer.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"
#include "tests/ui/console_fixture.h"
#include "ui/models/cluster_state.h"
#include "ui/models/slot_matrix_model.h"
#include "ui/models/throughput_model.h"
#include "ui/sources/recorder.h"
#include "ui/sources/replay_source.h"
#include "ui/views/qcustomplot_include.h"
#include "ui/views/throughput_view.h"
#include "ui/views/timeline_widget.h"

using railyard::testing::BuiltProgram;
using railyard::testing::SourcePath;

using railyard::ui::ClusterState;
using railyard::ui::NodeHealth;
using railyard::ui::Recorder;
using railyard::ui::ReplaySource;
using railyard::ui::ThroughputModel;
using railyard::ui::ThroughputView;
using railyard::ui::TimelineSlider;
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
constexpr int kRecordedFrames = 100;

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
    QVERIFY(railyard::ui::testing::WriteGeneratedRecording(path_.toStdString(), Small(),
                                                           kRecordedFrames)
                .ok());
  }

  void openShowsSpanNodesAndEvents() {
    ClusterState state;
    ReplaySource replay(&state);
    QString error;
    QVERIFY2(replay.Open(path_, &error), qPrintable(error));
    const GeneratedCluster g = Small();
    QCOMPARE(replay.StartMs(), g.TimeOf(0));
    QCOMPARE(replay.EndMs(), g.TimeOf(kRecordedFrames - 1));
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
    QCOMPARE(SequenceOf(state, 4), uint64_t(kRecordedFrames));
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
    QTRY_COMPARE_WITH_TIMEOUT(replay.PositionMs(), replay.StartMs() + 5000, 20000);
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

  // B10: a seek rebuilds the throughput chart's series (and so its CSV) from the recording up to
  // the seek point, without playing; backwards too.
  void aSeekRebuildsTheThroughputHistory() {
    ClusterState state;
    ThroughputView view(&state);
    view.resize(900, 600);
    view.show();
    ReplaySource replay(&state);
    QVERIFY(replay.Open(path_, nullptr));
    const GeneratedCluster g = Small();
    view.SetNode(1);
    replay.Seek(g.TimeOf(60) + 50);
    const ThroughputModel::Series& node = view.Model()->series(1);
    QCOMPARE(node.size(), size_t{61});  // Frames 0..60, one sample each.
    for (size_t f = 0; f < node.size(); ++f) QCOMPARE(node[f].t_ms, g.TimeOf(int(f)));
    QCOMPARE(view.DrawnSamples(), 61);
    const ThroughputModel::Series& cluster = view.Model()->series(ThroughputModel::kCluster);
    QVERIFY(cluster.size() >= 61);
    QCOMPARE(cluster.front().t_ms, g.TimeOf(0));
    QCOMPARE(cluster.back().t_ms, g.TimeOf(60) + 50);
    const QString csv = dir_.filePath("seek.csv");
    QString error;
    QVERIFY2(view.ExportCsv(csv, &error), qPrintable(error));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    // The header, then every sample of every node shown ("Each node": all of them).
    QCOMPARE(file.readAll().count('\n'), 1 + 61 * g.nodes);
    replay.Seek(g.TimeOf(20));
    QCOMPARE(view.Model()->series(1).size(), size_t{21});
    QCOMPARE(view.DrawnSamples(), 21);
    // Playing on from there extends the same series.
    replay.SetTickIntervalMs(100);
    replay.Step();
    QCOMPARE(view.Model()->series(1).size(), size_t{22});
  }

  // B15: an empty chart in a replay lies in the recording's span, and back live it ends now,
  // not where the last replay was.
  void anEmptyChartIsAnchoredToTheRecording() {
    ClusterState state;
    ThroughputView view(&state);
    view.resize(900, 600);
    view.show();
    ReplaySource replay(&state);
    QVERIFY(replay.Open(path_, nullptr));
    view.SetRecordingSpan(replay.StartMs(), replay.EndMs());
    const int empty = state.AddNode("127.0.0.1:9");  // Never in the recording.
    view.SetShow(ThroughputView::Show::kOneNode);
    view.SetNode(empty);
    QCOMPARE(view.DrawnSamples(), 0);
    QCOMPARE(view.VisibleFromMs(), replay.StartMs());
    QCOMPARE(view.VisibleToMs(), replay.EndMs());
    replay.Seek(replay.EndMs());
    QCOMPARE(view.VisibleFromMs(), replay.StartMs());
    QCOMPARE(view.VisibleToMs(), replay.EndMs());

    // Live again (as the main window resets its sources): the axis ends now.
    replay.Close();
    state.Clear();
    view.SetRecordingSpan(0, 0);
    const qint64 before = QDateTime::currentMSecsSinceEpoch();
    view.SetNode(state.AddNode("127.0.0.1:9"));
    QVERIFY(view.VisibleToMs() >= before);
    QVERIFY(view.VisibleToMs() <= QDateTime::currentMSecsSinceEpoch() + 1);
  }

  // Restarts and lame-duck changes are marked on the replay timeline (read from the snapshots)
  // and on the throughput charts when replayed.
  void restartsAndLameDucksAreMarkedInAReplay() {
    const QString path = dir_.filePath("states.rec");
    std::unique_ptr<railyard::trace::RecordingWriter> writer;
    QVERIFY(railyard::trace::RecordingWriter::Create(path.toStdString(), {}, &writer).ok());
    const qint64 t0 = 1700000000000;
    // n1: serving, lame duck from 3 s, a new process at 6 s. n2: serving throughout.
    for (int f = 0; f < 10; ++f) {
      for (int n = 1; n <= 2; ++n) {
        railyard::admin::Telemetry t;
        const bool restarted = n == 1 && f >= 6;
        t.set_sequence(restarted ? uint64_t(f - 5) : uint64_t(50 + f));
        t.set_unix_ms(t0 + f * 1000);
        t.set_node(n == 1 ? "n1" : "n2");
        t.set_state(n == 1 && f >= 3 && f < 6 ? railyard::admin::NODE_LAME_DUCK
                                              : railyard::admin::NODE_SERVING);
        t.mutable_throughput()->set_requests_per_s(10);
        QVERIFY(writer->AppendSnapshot(t.node(), t).ok());
      }
    }
    QVERIFY(writer->Close().ok());

    ClusterState state;
    ReplaySource replay(&state);
    TimelineWidget timeline(&replay);
    ThroughputView view(&state);
    view.resize(900, 600);
    view.show();
    QVERIFY(replay.Open(path, nullptr));
    auto labels = [&] {
      QStringList out;
      for (const TimelineSlider::Mark& m : timeline.Slider()->Marks()) out << m.label;
      return out;
    };
    const QStringList expected = {"0:03.0  n1  lame duck", "0:06.0  n1  restart",
                                  "0:06.0  n1  lame duck left"};
    // The scan runs on a worker: a generous wait, for a loaded machine.
    QTRY_VERIFY_WITH_TIMEOUT(timeline.StateMarksReady(), 30000);
    QCOMPARE(labels(), expected);
    QCOMPARE(timeline.Slider()->Marks()[1].value, 60);
    // Replayed to the end, the charts mark the same.
    replay.Seek(replay.EndMs());
    const QVector<railyard::ui::ThroughputEvent> events =
        view.Model()->Events(ThroughputModel::kCluster, LLONG_MIN, LLONG_MAX);
    QCOMPARE(events.size(), 3);
    QCOMPARE(events[0].command, QString("lame duck"));
    QCOMPARE(events[0].t_ms, t0 + 3000);
    QCOMPARE(events[1].command, QString("restart"));
    QCOMPARE(events[1].t_ms, t0 + 6000);
  }

  // A dense recording gets a shorter history, not a seek that stalls the GUI thread.
  void aSeekReplaysABoundedHistory() {
    ClusterState state;
    ThroughputView view(&state);
    ReplaySource replay(&state);
    QVERIFY(replay.Open(path_, nullptr));
    const GeneratedCluster g = Small();
    view.SetNode(1);
    const int nodes = state.NodeCount();
    QVERIFY(nodes > 0);
    // Room for about 10 snapshots per node of history (a snapshot per node per frame).
    replay.SetMaxHistorySnapshots(10.0 * nodes);
    replay.Seek(g.TimeOf(60) + 50);
    const size_t kept = view.Model()->series(1).size();
    QVERIFY2(kept >= 5 && kept <= 16, qPrintable(QString::number(kept)));
    QCOMPARE(view.Model()->series(1).back().t_ms, g.TimeOf(60));
  }

  // B11: a click on the groove seeks to where it was clicked, not by a page.
  void aClickOnTheTimelineSeeksThere() {
    ClusterState state;
    ReplaySource replay(&state);
    QVERIFY(replay.Open(path_, nullptr));
    TimelineWidget timeline(&replay);
    timeline.resize(800, 200);
    timeline.show();
    QVERIFY(QTest::qWaitForWindowExposed(&timeline));
    TimelineSlider* slider = timeline.Slider();
    for (int value : {70, 12, 95}) {
      QTest::mouseClick(slider, Qt::LeftButton, {},
                        QPoint(slider->XOfValue(value), slider->height() / 2));
      QCOMPARE(replay.PositionMs(), replay.StartMs() + value * TimelineWidget::kSliderStepMs);
      QCOMPARE(slider->value(), value);
    }
  }

  // Space, Left/Right and the speed keys drive the player wherever the focus is in its window.
  void keysDriveThePlayer() {
    ClusterState state;
    ReplaySource replay(&state);
    QVERIFY(replay.Open(path_, nullptr));
    replay.SetTickIntervalMs(1000);  // Playing must not move the position during the test.
    replay.SetSpeed(0.5);
    replay.SetSpeed(1);
    QWidget window;
    auto* timeline = new TimelineWidget(&replay, &window);
    auto* elsewhere = new QLineEdit(&window);
    elsewhere->move(0, 210);
    window.resize(800, 260);
    timeline->resize(800, 200);
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    timeline->EventList()->setFocus();
    QTest::keyClick(timeline->EventList(), Qt::Key_Space);
    QVERIFY(replay.Playing());
    QTest::keyClick(timeline->EventList(), Qt::Key_Space);
    QVERIFY(!replay.Playing());
    const qint64 start = replay.StartMs();
    replay.Seek(start + 5000);
    QTest::keyClick(timeline->EventList(), Qt::Key_Right);
    QCOMPARE(replay.PositionMs(), start + 6000);
    QTest::keyClick(timeline->EventList(), Qt::Key_Left);
    QTest::keyClick(timeline->EventList(), Qt::Key_Left);
    QCOMPARE(replay.PositionMs(), start + 4000);
    QTest::keyClick(timeline->Slider(), Qt::Key_Right, Qt::ShiftModifier);
    QCOMPARE(replay.PositionMs(), replay.EndMs());  // Clamped to the end.
    QCOMPARE(replay.Speed(), 1.0);
    QTest::keyClick(timeline->EventList(), Qt::Key_Plus);
    QCOMPARE(replay.Speed(), 2.0);
    QTest::keyClick(timeline->EventList(), Qt::Key_BracketRight);
    QCOMPARE(replay.Speed(), 4.0);
    QTest::keyClick(timeline->EventList(), Qt::Key_Minus);
    QCOMPARE(replay.Speed(), 2.0);
    QTest::keyClick(timeline->EventList(), Qt::Key_BracketLeft);
    QTest::keyClick(timeline->EventList(), Qt::Key_BracketLeft);
    QTest::keyClick(timeline->EventList(), Qt::Key_BracketLeft);
    QCOMPARE(replay.Speed(), ReplaySource::kMinSpeed);
    QCOMPARE(timeline->SpeedBox()->currentData().toDouble(), ReplaySource::kMinSpeed);
    // The keys are listed where a person hovers.
    for (const char* key : {"Space", "Left", "Right", "+", "]"}) {
      QVERIFY2(timeline->PlayButton()->toolTip().contains(key), key);
      QVERIFY2(timeline->Slider()->toolTip().contains(key), key);
    }
  }

  // The recorded commands are marked on the timeline, each drawn in its kind's colour where it
  // happened.
  void eventMarksAreOnTheTimeline() {
    ClusterState state;
    ReplaySource replay(&state);
    QVERIFY(replay.Open(path_, nullptr));
    TimelineWidget timeline(&replay);
    timeline.resize(800, 200);
    timeline.show();
    QVERIFY(QTest::qWaitForWindowExposed(&timeline));
    TimelineSlider* slider = timeline.Slider();
    // The recorded commands, and n001's lame duck from the drain to the undrain (read from the
    // snapshots on a worker).
    QTRY_VERIFY_WITH_TIMEOUT(timeline.StateMarksReady(), 30000);
    QVector<TimelineSlider::Mark> marks;
    QStringList states;
    for (const TimelineSlider::Mark& m : slider->Marks()) {
      if (m.kind.startsWith("lame duck")) {
        states << m.label;
      } else {
        marks << m;
      }
    }
    const GeneratedCluster g = Small();
    QCOMPARE(states, (QStringList{QString("0:03.3  n001  lame duck"),
                                  QString("0:06.6  n001  lame duck left")}));
    QCOMPARE(g.TimeOf(kRecordedFrames / 3) - replay.StartMs(), qint64{3300});
    QCOMPARE(marks.size(), 3);
    const QStringList kinds{"drain", "compact", "undrain"};
    const QImage image = slider->grab().toImage();
    for (int i = 0; i < marks.size(); ++i) {
      const auto& event = replay.Events()[i];
      QCOMPARE(marks[i].kind, kinds[i]);
      QCOMPARE(marks[i].value,
               int((event.unix_ms - replay.StartMs()) / TimelineWidget::kSliderStepMs));
      QVERIFY(marks[i].label.contains(event.node));
      const QPoint at(slider->XOfValue(marks[i].value), 1);
      QCOMPARE(image.pixelColor(at * image.devicePixelRatio()),
               TimelineSlider::MarkColor(kinds[i]));
    }
    QVERIFY(TimelineSlider::MarkColor("drain") != TimelineSlider::MarkColor("undrain"));
  }

  // Opening says what the recording holds: its span, nodes and events.
  void openingShowsASummary() {
    ClusterState state;
    ReplaySource replay(&state);
    QVERIFY(replay.Open(path_, nullptr));
    TimelineWidget timeline(&replay);
    const QString summary = timeline.SummaryLabel()->text();
    for (const char* part : {"0:09.9", "5 nodes", "3 events", "1 drain", "1 compact", "1 undrain"})
      QVERIFY2(summary.contains(part), qPrintable(summary));
  }

  // B23: viewing a finished recording leaves nothing beside it, and still shows all of it.
  void openingARecordingLeavesNoWalOrShm() {
    QTemporaryDir dir;
    const QString path = dir.filePath("viewed.rec");
    QVERIFY(
        railyard::ui::testing::WriteGeneratedRecording(path.toStdString(), Small(), kRecordedFrames)
            .ok());
    {
      ClusterState state;
      ReplaySource replay(&state);
      QVERIFY(replay.Open(path, nullptr));
      replay.Seek(replay.EndMs());
      QCOMPARE(SequenceOf(state, 4), uint64_t(kRecordedFrames));
      QCOMPARE(replay.Events().size(), 3);
      QVERIFY(!QFile::exists(path + "-wal"));
      QVERIFY(!QFile::exists(path + "-shm"));
    }
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"viewed.rec"});
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

  // A node that stops answering is recorded as one outage with its reason, and the replay shows
  // it unreachable from that moment, with the gap and the down and up marks the live console
  // drew. Before, a recording held snapshots only: the replay showed the node serving (its last
  // figures as if fresh) until it went stale 5 s later, and a shorter outage not at all.
  void anOutageIsRecordedAndReplayedAsUnreachable() {
    const GeneratedCluster g = Small();
    ClusterState state;
    for (int n = 0; n < 2; ++n) {
      state.AddNode(QString("10.0.0.%1:7001").arg(n), QString::fromStdString(g.NodeName(n)));
    }
    Recorder recorder(&state);
    const QString out = dir_.filePath("outage.rec");
    QString error;
    QVERIFY2(recorder.Start(out, &error), qPrintable(error));
    const QString reason = "timed out: no answer within 800 ms";
    // n001 fails its polls in frames 3, 4 and 5, and answers again in frame 6.
    for (int f = 0; f < 8; ++f) {
      std::vector<ClusterState::Update> updates;
      updates.push_back({0, std::make_shared<const railyard::admin::Telemetry>(g.Telemetry(0, f))});
      if (f >= 3 && f <= 5) {
        updates.push_back({1, nullptr, reason});
      } else {
        updates.push_back(
            {1, std::make_shared<const railyard::admin::Telemetry>(g.Telemetry(1, f))});
      }
      state.ApplyFrame(updates, g.TimeOf(f));
    }
    QCOMPARE(recorder.Stop(), QString());

    std::unique_ptr<railyard::trace::RecordingReader> reader;
    QVERIFY(railyard::trace::RecordingReader::Open(out.toStdString(), &reader).ok());
    std::vector<railyard::trace::Event> events;
    QVERIFY(reader->Events(&events).ok());
    QCOMPARE(events.size(), size_t{1});  // Once per outage, not once per failed poll.
    QCOMPARE(events[0].kind, std::string(railyard::trace::kEventUnreachable));
    QCOMPARE(events[0].node, g.NodeName(1));
    QCOMPARE(events[0].unix_ms, g.TimeOf(3));
    QCOMPARE(QString::fromStdString(events[0].detail), reason);

    ClusterState replayed;
    ReplaySource replay(&replayed);
    ThroughputView view(&replayed);
    QVERIFY(replay.Open(out, &error));
    // A seek into the outage: unreachable with the reason, its last figures kept.
    replay.Seek(g.TimeOf(4));
    QCOMPARE(replayed.Node(1).health, NodeHealth::kUnreachable);
    QCOMPARE(replayed.Node(1).last_error, reason);
    QCOMPARE(replayed.Node(1).down_since_ms, g.TimeOf(3));
    QCOMPARE(SequenceOf(replayed, 1), 3u);  // Frame 2's snapshot, as last known.
    QCOMPARE(replayed.Node(0).health, NodeHealth::kServing);
    // Played through, frame by frame: down in frame 3, up in frame 6.
    replay.Seek(g.TimeOf(1));
    replay.SetTickIntervalMs(int(g.frame_ms));
    QCOMPARE(replayed.Node(1).health, NodeHealth::kServing);
    QVector<NodeHealth> seen;
    for (int f = 2; f <= 7; ++f) {
      replay.Step();
      QCOMPARE(replay.PositionMs(), g.TimeOf(f));
      seen << replayed.Node(1).health;
    }
    const QVector<NodeHealth> expected = {NodeHealth::kServing,     NodeHealth::kUnreachable,
                                          NodeHealth::kUnreachable, NodeHealth::kUnreachable,
                                          NodeHealth::kServing,     NodeHealth::kServing};
    QCOMPARE(seen, expected);
    QStringList marks;
    for (const railyard::ui::ThroughputEvent& e : view.Model()->Events(1, LLONG_MIN, LLONG_MAX)) {
      marks << QString("%1 at %2").arg(e.command).arg(e.t_ms - g.TimeOf(0));
    }
    QCOMPARE(marks, QStringList({"down at 300", "up at 600"}));
  }

  // Remove node renumbers the others; it wrote each one's snapshot and recent commands into the
  // recording a second time.
  void removeNodeWritesNothingTwice() {
    const GeneratedCluster g = Small();
    ClusterState state;
    for (int n = 0; n < 3; ++n) {
      state.AddNode(QString("10.0.0.%1:7001").arg(n), QString::fromStdString(g.NodeName(n)));
    }
    Recorder recorder(&state);
    const QString out = dir_.filePath("remove.rec");
    QString error;
    QVERIFY2(recorder.Start(out, &error), qPrintable(error));
    for (int f = 0; f < 2; ++f) {
      std::vector<ClusterState::Update> updates;
      for (int n = 0; n < 3; ++n) {
        railyard::admin::Telemetry t = g.Telemetry(n, f);
        railyard::admin::CommandEvent* drain = t.add_recent_commands();
        drain->set_unix_ms(g.TimeOf(0) + 10 * n);
        drain->set_command("drain");
        updates.push_back({n, std::make_shared<const railyard::admin::Telemetry>(std::move(t))});
      }
      state.ApplyFrame(updates, g.TimeOf(f));
    }
    state.RemoveNode(0);
    QCOMPARE(recorder.Stop(), QString());
    std::unique_ptr<railyard::trace::RecordingReader> reader;
    QVERIFY(railyard::trace::RecordingReader::Open(out.toStdString(), &reader).ok());
    uint64_t snapshots = 0;
    QVERIFY(reader->SnapshotCount(&snapshots).ok());
    QCOMPARE(snapshots, uint64_t{6});
    std::vector<railyard::trace::Event> events;
    QVERIFY(reader->Events(&events).ok());
    QCOMPARE(events.size(), size_t{3});  // One drain per node.
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
    sim.start(BuiltProgram("railyardctl"),
              {"sim", SourcePath("resources/scenarios/02-down.scn"), "--policy", "lowest-slot",
               "--duration-s", "30", "--record", out});
    QVERIFY(sim.waitForFinished(60000));
    QVERIFY2(sim.exitCode() == 0, sim.readAllStandardError().constData());
    ClusterState state;
    railyard::ui::SlotMatrixModel matrix(&state);
    QAbstractItemModelTester tester(&matrix,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    ThroughputView view(&state);
    view.resize(900, 600);
    view.show();
    ReplaySource replay(&state);
    QString error;
    QVERIFY2(replay.Open(out, &error), qPrintable(error));
    view.SetRecordingSpan(replay.StartMs(), replay.EndMs());
    QCOMPARE(state.NodeCount(), 21);  // 20 backends and the clients.
    // B13: the scenario's "at 20s backend 3 down" is at 0:20.0 of the recording.
    QVERIFY(!replay.Events().isEmpty());
    QCOMPARE(replay.Events()[0].detail, QString("backend-3 down"));
    QCOMPARE(replay.Events()[0].unix_ms - replay.StartMs(), qint64{20000});
    replay.Seek(replay.StartMs() + 15000);
    const int backend3 = state.IndexOfName("backend-3");
    QVERIFY(backend3 >= 0);
    QCOMPARE(state.Node(backend3).health, NodeHealth::kServing);
    // B12: the backends report latency, which the chart draws (and does not call missing).
    const int backend0 = state.IndexOfName("backend-0");
    QVERIFY(backend0 >= 0);
    const ThroughputModel::Series& latency = view.Model()->series(backend0);
    QVERIFY(latency.size() > 10);
    QVERIFY(latency.back().p99_us > 0);
    QVERIFY(latency.back().p50_us > 0);
    view.SetShow(ThroughputView::Show::kOneNode);
    view.SetNode(backend0);
    const double drawn_p99 = view.LatencyPlot()
                                 ->graph(1)
                                 ->data()
                                 ->at(view.LatencyPlot()->graph(1)->dataCount() - 1)
                                 ->value;
    QCOMPARE(drawn_p99, latency.back().p99_us / 1000.0);
    QVERIFY(view.LatencyNotice().isEmpty());
    QCOMPARE(matrix.ClientCount(), 50);
    for (int row = 0; row < matrix.ClientCount(); ++row) {
      QCOMPARE(matrix.PoolSize(row), 16);  // From the clients' own pools.
    }
    QVERIFY(!replay.Events().isEmpty());
    // Backend 3 goes down: unreachable, with the reason, as a live console sees a dead process
    // (it read "stale" before, as if it were only slow to answer).
    replay.JumpToEvent(0);
    replay.SetSpeed(16);
    replay.SetTickIntervalMs(1000);
    replay.Step();
    QCOMPARE(state.Node(backend3).health, NodeHealth::kUnreachable);
    QVERIFY2(state.Node(backend3).last_error.contains("down"),
             qPrintable(state.Node(backend3).last_error));
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

RAILYARD_QTEST_MAIN(ReplayRecordTest)
#include "tst_replay_record.moc"
