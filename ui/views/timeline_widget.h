// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QKeySequence>
#include <QThreadPool>
#include <QTimer>
#include <QWidget>
#include <functional>
#include <optional>

#include "ui/views/recording_state_changes.h"
#include "ui/views/timeline_slider.h"

class QComboBox;
class QLabel;
class QListWidget;
class QToolButton;

namespace railyard::ui {

class ReplaySource;

// Replay controls: play/pause, speed (0.5x to 16x), a slider to seek by clicking or dragging
// with the recorded events (drain, undrain, compact, flush) marked on it, and the nodes'
// restarts, lame-duck changes and alerts (found by reading the recording's snapshots on a worker
// thread after it opens; at most kMaxScannedSnapshots), the position, a summary of the recording
// (span, nodes, events), and the events listed with a jump to each.
//
// Keys, wherever the focus is in the window while the timeline is shown: Space plays or pauses,
// Left/Right step back/forward by kKeyStepMs (with Shift by kBigKeyStepMs), +/- and ]/[ change
// the speed. The player's tooltip lists them.
class TimelineWidget : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineWidget(ReplaySource* source, QWidget* parent = nullptr);
  // Waits for a scan of the recording that is still running.
  ~TimelineWidget() override;

  TimelineSlider* Slider() const { return slider_; }
  QListWidget* EventList() const { return events_; }
  QComboBox* SpeedBox() const { return speed_; }
  QToolButton* PlayButton() const { return play_; }
  // "1:03.5 recorded from 2025-06-15 17:46:40, 5 nodes, 3 events (1 drain, ...)".
  QLabel* SummaryLabel() const { return summary_; }
  // True once the open recording's restarts and lame-duck changes (and alerts) are on the slider.
  bool StateMarksReady() const { return state_marks_ready_; }
  // From the next recording opened on, the alerts these rules fire and resolve in it are marks
  // too, found by the same scan (ScanRecordingStateChanges): the console's rules and stale
  // allowance.
  void SetAlertScan(const RecordingAlertScan& scan) { alert_scan_ = scan; }
  // Slider steps are this many ms of cluster time.
  static constexpr qint64 kSliderStepMs = 100;
  static constexpr qint64 kKeyStepMs = 1000;
  static constexpr qint64 kBigKeyStepMs = 10000;
  static constexpr uint64_t kMaxScannedSnapshots = 200000;

 private:
  void OnOpened();
  // Adds the state changes a scan of recording `generation` found to the slider's marks.
  void AddStateMarks(int generation, const QVector<RecordingStateChange>& changes);
  void OnPosition(qint64 unix_ms);
  void SeekToSlider();
  void TogglePlay();
  void StepBy(qint64 ms);
  // Moves the speed box `by` entries (faster for positive).
  void ChangeSpeed(int by);
  void AddKey(const QKeySequence& key, std::function<void()> action);

  ReplaySource* const source_;
  QToolButton* play_;
  QComboBox* speed_;
  TimelineSlider* slider_;
  QLabel* position_;
  QLabel* summary_;
  QListWidget* events_;
  QTimer seek_timer_;        // Coalesces seeks while dragging.
  QThreadPool scan_pool_;    // One thread: the scan of the open recording.
  int scan_generation_ = 0;  // Bumped at each open: a scan of an earlier one is dropped.
  bool state_marks_ready_ = false;
  std::optional<RecordingAlertScan> alert_scan_;
};

}  // namespace railyard::ui
