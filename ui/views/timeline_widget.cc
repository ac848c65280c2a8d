#include "ui/views/timeline_widget.h"

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QSlider>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/sources/replay_source.h"

namespace railyard::ui {

namespace {

QString Clock(qint64 ms) {
  const qint64 s = ms / 1000;
  return QStringLiteral("%1:%2.%3")
      .arg(s / 60)
      .arg(s % 60, 2, 10, QLatin1Char('0'))
      .arg((ms % 1000) / 100);
}

}  // namespace

TimelineWidget::TimelineWidget(ReplaySource* source, QWidget* parent)
    : QWidget(parent),
      source_(source),
      play_(new QToolButton(this)),
      speed_(new QComboBox(this)),
      slider_(new QSlider(Qt::Horizontal, this)),
      position_(new QLabel(this)),
      events_(new QListWidget(this)) {
  play_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
  play_->setToolTip(tr("Play / pause"));
  for (double s : {0.5, 1.0, 2.0, 4.0, 8.0, 16.0}) speed_->addItem(QStringLiteral("%1x").arg(s), s);
  speed_->setCurrentIndex(1);
  speed_->setToolTip(tr("Playback speed"));
  slider_->setTracking(true);
  position_->setMinimumWidth(
      fontMetrics().horizontalAdvance(QStringLiteral("000:00.0 / 000:00.0")));
  events_->setMaximumHeight(110);
  events_->setToolTip(tr("Recorded commands; double-click to jump there"));

  auto* controls = new QHBoxLayout;
  controls->addWidget(play_);
  controls->addWidget(speed_);
  controls->addWidget(slider_, 1);
  controls->addWidget(position_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  layout->addLayout(controls);
  layout->addWidget(events_);

  seek_timer_.setSingleShot(true);
  seek_timer_.setInterval(30);
  connect(&seek_timer_, &QTimer::timeout, this, &TimelineWidget::SeekToSlider);
  connect(play_, &QToolButton::clicked, this, [this] {
    if (source_->Playing()) {
      source_->Pause();
    } else {
      source_->Play();
    }
  });
  connect(speed_, &QComboBox::currentIndexChanged, this,
          [this](int) { source_->SetSpeed(speed_->currentData().toDouble()); });
  connect(slider_, &QSlider::sliderMoved, this, [this] { seek_timer_.start(); });
  connect(slider_, &QSlider::sliderReleased, this, &TimelineWidget::SeekToSlider);
  connect(slider_, &QSlider::actionTriggered, this, [this](int action) {
    // Clicks on the groove and keyboard steps, not drags (those come through sliderMoved).
    if (action != QAbstractSlider::SliderMove) seek_timer_.start();
  });
  connect(events_, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* item) { source_->JumpToEvent(events_->row(item)); });
  connect(source_, &ReplaySource::Opened, this, &TimelineWidget::OnOpened);
  connect(source_, &ReplaySource::PositionChanged, this, &TimelineWidget::OnPosition);
  connect(source_, &ReplaySource::PlayingChanged, this, [this](bool playing) {
    play_->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
  });
  connect(source_, &ReplaySource::SpeedChanged, this, [this](double speed) {
    const int i = speed_->findData(speed);
    if (i >= 0 && i != speed_->currentIndex()) speed_->setCurrentIndex(i);
  });
  if (source_->IsOpen()) {
    OnOpened();
    OnPosition(source_->PositionMs());
  }
}

void TimelineWidget::OnOpened() {
  const qint64 span = source_->EndMs() - source_->StartMs();
  slider_->setRange(0, static_cast<int>(span / kSliderStepMs));
  slider_->setPageStep(std::max(1, static_cast<int>(10000 / kSliderStepMs)));
  events_->clear();
  for (const ReplayEvent& e : source_->Events()) {
    events_->addItem(QStringLiteral("%1  %2  %3  %4")
                         .arg(Clock(e.unix_ms - source_->StartMs()), e.node, e.kind, e.detail));
  }
}

void TimelineWidget::OnPosition(qint64 unix_ms) {
  if (!slider_->isSliderDown() && !seek_timer_.isActive()) {
    const QSignalBlocker block(slider_);
    slider_->setValue(static_cast<int>((unix_ms - source_->StartMs()) / kSliderStepMs));
  }
  position_->setText(QStringLiteral("%1 / %2").arg(Clock(unix_ms - source_->StartMs()),
                                                   Clock(source_->EndMs() - source_->StartMs())));
}

void TimelineWidget::SeekToSlider() {
  seek_timer_.stop();
  source_->Seek(source_->StartMs() + qint64(slider_->value()) * kSliderStepMs);
}

}  // namespace railyard::ui
