// SPDX-License-Identifier: Apache-2.0
#include "ui/views/timeline_widget.h"

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QListWidget>
#include <QShortcut>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>

#include "ui/sources/replay_source.h"
#include "ui/support/gui_thread.h"

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
      slider_(new TimelineSlider(this)),
      position_(new QLabel(this)),
      summary_(new QLabel(this)),
      events_(new QListWidget(this)) {
  const QString keys =
      tr("Keys: Space play / pause; Left / Right step %1 s back / forward (Shift: %2 s); "
         "+ / - or ] / [ faster / slower")
          .arg(kKeyStepMs / 1000)
          .arg(kBigKeyStepMs / 1000);
  setToolTip(keys);
  play_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
  play_->setToolTip(tr("Play / pause (Space)") + QLatin1Char('\n') + keys);
  for (double s : {0.5, 1.0, 2.0, 4.0, 8.0, 16.0}) speed_->addItem(QStringLiteral("%1x").arg(s), s);
  speed_->setCurrentIndex(1);
  speed_->setToolTip(tr("Playback speed (+ / - or ] / [)"));
  slider_->setTracking(true);
  slider_->setToolTip(tr("Click or drag to seek; the ticks are recorded commands") +
                      QLatin1Char('\n') + keys);
  position_->setMinimumWidth(
      fontMetrics().horizontalAdvance(QStringLiteral("000:00.0 / 000:00.0")));
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
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
  layout->addWidget(summary_);
  layout->addWidget(events_);

  AddKey(QKeySequence(Qt::Key_Space), [this] { TogglePlay(); });
  AddKey(QKeySequence(Qt::Key_Left), [this] { StepBy(-kKeyStepMs); });
  AddKey(QKeySequence(Qt::Key_Right), [this] { StepBy(kKeyStepMs); });
  AddKey(QKeySequence(Qt::SHIFT | Qt::Key_Left), [this] { StepBy(-kBigKeyStepMs); });
  AddKey(QKeySequence(Qt::SHIFT | Qt::Key_Right), [this] { StepBy(kBigKeyStepMs); });
  for (Qt::Key key : {Qt::Key_Plus, Qt::Key_Equal, Qt::Key_BracketRight})
    AddKey(QKeySequence(key), [this] { ChangeSpeed(1); });
  for (Qt::Key key : {Qt::Key_Minus, Qt::Key_BracketLeft})
    AddKey(QKeySequence(key), [this] { ChangeSpeed(-1); });

  seek_timer_.setSingleShot(true);
  seek_timer_.setInterval(30);
  connect(&seek_timer_, &QTimer::timeout, this, &TimelineWidget::SeekToSlider);
  connect(play_, &QToolButton::clicked, this, &TimelineWidget::TogglePlay);
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
  scan_pool_.setMaxThreadCount(1);
  if (source_->IsOpen()) {
    OnOpened();
    OnPosition(source_->PositionMs());
  }
}

TimelineWidget::~TimelineWidget() { scan_pool_.waitForDone(); }

void TimelineWidget::OnOpened() {
  const qint64 span = source_->EndMs() - source_->StartMs();
  slider_->setRange(0, static_cast<int>(span / kSliderStepMs));
  slider_->setPageStep(std::max(1, static_cast<int>(10000 / kSliderStepMs)));
  events_->clear();
  QVector<TimelineSlider::Mark> marks;
  QStringList kinds;  // In order of first appearance.
  QHash<QString, int> per_kind;
  for (const ReplayEvent& e : source_->Events()) {
    const QString line = QStringLiteral("%1  %2  %3  %4")
                             .arg(Clock(e.unix_ms - source_->StartMs()), e.node, e.kind, e.detail);
    events_->addItem(line);
    marks.push_back(
        {static_cast<int>((e.unix_ms - source_->StartMs()) / kSliderStepMs), e.kind, line});
    if (!per_kind.contains(e.kind)) kinds << e.kind;
    ++per_kind[e.kind];
  }
  slider_->SetMarks(std::move(marks));
  // Restarts and lame-duck changes are in the snapshots, not the events: read them off the GUI
  // thread (a long recording takes a while) and add them when done.
  const int generation = ++scan_generation_;
  state_marks_ready_ = false;
  const QString path = source_->Path();
  scan_pool_.start([this, generation, path, alerts = alert_scan_] {
    QVector<RecordingStateChange> changes =
        ScanRecordingStateChanges(path, kMaxScannedSnapshots, nullptr, alerts ? &*alerts : nullptr);
    RunOnReceiverThread(this, [this, generation, changes = std::move(changes)] {
      AddStateMarks(generation, changes);
    });
  });
  QStringList counts;
  for (const QString& kind : kinds) counts << QStringLiteral("%1 %2").arg(per_kind[kind]).arg(kind);
  const int nodes = source_->RecordedNodeCount();
  const int events = static_cast<int>(source_->Events().size());
  QString summary = tr("%1 recorded from %2, %3 %4, %5 %6")
                        .arg(Clock(span),
                             QDateTime::fromMSecsSinceEpoch(source_->StartMs())
                                 .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")),
                             QString::number(nodes), nodes == 1 ? tr("node") : tr("nodes"),
                             QString::number(events), events == 1 ? tr("event") : tr("events"));
  if (!counts.isEmpty()) summary += QStringLiteral(" (%1)").arg(counts.join(QStringLiteral(", ")));
  summary_->setText(summary);
}

void TimelineWidget::AddStateMarks(int generation, const QVector<RecordingStateChange>& changes) {
  if (generation != scan_generation_ || !source_->IsOpen()) return;
  state_marks_ready_ = true;
  QVector<TimelineSlider::Mark> marks;
  for (const RecordingStateChange& c : changes) {
    const qint64 at = c.unix_ms - source_->StartMs();
    marks.push_back({static_cast<int>(at / kSliderStepMs), c.kind,
                     QStringLiteral("%1  %2  %3").arg(Clock(at), c.node, c.kind)});
  }
  // First, so that a command at the same moment (a drain and its lame duck) is drawn over it.
  marks += slider_->Marks();
  slider_->SetMarks(std::move(marks));
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

void TimelineWidget::TogglePlay() {
  if (source_->Playing()) {
    source_->Pause();
  } else {
    source_->Play();
  }
}

void TimelineWidget::StepBy(qint64 ms) {
  if (!source_->IsOpen()) return;
  seek_timer_.stop();  // A pending drag seek would undo the step.
  source_->Seek(source_->PositionMs() + ms);
}

void TimelineWidget::ChangeSpeed(int by) {
  const int index = std::clamp(speed_->currentIndex() + by, 0, speed_->count() - 1);
  speed_->setCurrentIndex(index);  // currentIndexChanged sets the source's speed.
}

void TimelineWidget::AddKey(const QKeySequence& key, std::function<void()> action) {
  // The whole window's: the keys work wherever the focus is while the timeline is shown (a
  // shortcut of a hidden widget is off, so they do nothing outside a replay).
  auto* shortcut = new QShortcut(key, this);
  shortcut->setContext(Qt::WindowShortcut);
  connect(shortcut, &QShortcut::activated, this, std::move(action));
}

}  // namespace railyard::ui
