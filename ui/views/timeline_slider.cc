// SPDX-License-Identifier: Apache-2.0
#include "ui/views/timeline_slider.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QToolTip>
#include <algorithm>
#include <cstdlib>
#include <utility>

namespace railyard::ui {

namespace {

constexpr int kMarkWidth = 3;
// How near (px) the pointer must be to a mark for its tooltip.
constexpr int kMarkHitPx = 4;

}  // namespace

TimelineSlider::TimelineSlider(QWidget* parent) : QSlider(Qt::Horizontal, parent) {
  // Room above and below the groove for the marks.
  setMinimumHeight(std::max(minimumSizeHint().height(), 24));
}

void TimelineSlider::SetMarks(QVector<Mark> marks) {
  marks_ = std::move(marks);
  update();
}

QColor TimelineSlider::MarkColor(const QString& kind) {
  if (kind == QLatin1String("drain")) return QColor(0xe0, 0x7b, 0x00);    // Amber: load leaves.
  if (kind == QLatin1String("undrain")) return QColor(0x2e, 0x9d, 0x3c);  // Green: it returns.
  if (kind == QLatin1String("compact")) return QColor(0x2f, 0x6f, 0xd6);
  if (kind == QLatin1String("flush")) return QColor(0x8e, 0x44, 0xad);
  if (kind.endsWith(QLatin1String(" firing"))) return QColor(0xd6, 0x27, 0x28);  // An alert.
  return QColor(0x80, 0x80, 0x80);
}

void TimelineSlider::Geometry(int* start, int* span, int* handle) const {
  QStyleOptionSlider option;
  initStyleOption(&option);
  const QRect groove =
      style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderGroove, this);
  const QRect knob =
      style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderHandle, this);
  *handle = knob.width();
  *start = groove.x();
  *span = std::max(1, groove.right() - knob.width() + 1 - groove.x());
}

int TimelineSlider::XOfValue(int value) const {
  int start = 0, span = 0, handle = 0;
  Geometry(&start, &span, &handle);
  return start + QStyle::sliderPositionFromValue(minimum(), maximum(), value, span) + handle / 2;
}

int TimelineSlider::ValueAtX(int x) const {
  int start = 0, span = 0, handle = 0;
  Geometry(&start, &span, &handle);
  return QStyle::sliderValueFromPosition(minimum(), maximum(), x - handle / 2 - start, span);
}

void TimelineSlider::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && maximum() > minimum()) {
    QStyleOptionSlider option;
    initStyleOption(&option);
    const QRect knob =
        style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderHandle, this);
    // Off the handle: move it under the pointer, so QSlider grabs it as if pressed there and the
    // release (sliderReleased) seeks.
    if (!knob.contains(event->position().toPoint())) {
      setSliderPosition(ValueAtX(event->position().toPoint().x()));
    }
  }
  QSlider::mousePressEvent(event);
}

void TimelineSlider::paintEvent(QPaintEvent* event) {
  QSlider::paintEvent(event);
  if (marks_.isEmpty()) return;
  QPainter painter(this);
  for (const Mark& mark : marks_) {
    const int x = XOfValue(mark.value);
    painter.fillRect(QRect(x - kMarkWidth / 2, 0, kMarkWidth, height()), MarkColor(mark.kind));
  }
}

bool TimelineSlider::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    QStringList near;
    for (const Mark& mark : marks_) {
      if (std::abs(XOfValue(mark.value) - help->pos().x()) <= kMarkHitPx) near << mark.label;
    }
    if (!near.isEmpty()) {
      QToolTip::showText(help->globalPos(), near.join(QLatin1Char('\n')), this);
      return true;
    }
  }
  return QSlider::event(event);
}

}  // namespace railyard::ui
