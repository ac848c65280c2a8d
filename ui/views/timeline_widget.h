#pragma once

#include <QTimer>
#include <QWidget>

class QComboBox;
class QLabel;
class QListWidget;
class QSlider;
class QToolButton;

namespace railyard::ui {

class ReplaySource;

// Replay controls: play/pause, speed (0.5x to 16x), a slider to seek by dragging, the position,
// and the recorded events (drain, compact, ...) with a jump to each.
class TimelineWidget : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineWidget(ReplaySource* source, QWidget* parent = nullptr);

  QSlider* Slider() const { return slider_; }
  QListWidget* EventList() const { return events_; }
  QComboBox* SpeedBox() const { return speed_; }
  // Slider steps are this many ms of cluster time.
  static constexpr qint64 kSliderStepMs = 100;

 private:
  void OnOpened();
  void OnPosition(qint64 unix_ms);
  void SeekToSlider();

  ReplaySource* const source_;
  QToolButton* play_;
  QComboBox* speed_;
  QSlider* slider_;
  QLabel* position_;
  QListWidget* events_;
  QTimer seek_timer_;  // Coalesces seeks while dragging.
};

}  // namespace railyard::ui
