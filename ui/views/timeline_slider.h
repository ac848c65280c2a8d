// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>
#include <QSlider>
#include <QString>
#include <QVector>

namespace railyard::ui {

// The replay timeline's slider. A left click on the groove puts the handle where it was clicked
// and grabs it (press, optional drag, release), instead of QSlider's page step; recorded events
// are drawn as coloured ticks over the groove, each named in the tooltip under the pointer.
//
// Thread safety: GUI thread only.
class TimelineSlider : public QSlider {
  Q_OBJECT
 public:
  struct Mark {
    int value = 0;  // Slider value the event sits at.
    QString kind;   // "drain", "undrain", "compact", "flush", or any other command.
    QString label;  // For the tooltip.
  };

  explicit TimelineSlider(QWidget* parent = nullptr);

  void SetMarks(QVector<Mark> marks);
  const QVector<Mark>& Marks() const { return marks_; }

  // Widget x of the handle's centre at `value`: where a mark at `value` is drawn, and where a
  // click lands on `value`.
  int XOfValue(int value) const;
  // The value a click at widget x lands on.
  int ValueAtX(int x) const;
  // One colour per command kind, so a drain reads the same on every timeline.
  static QColor MarkColor(const QString& kind);

 protected:
  void mousePressEvent(QMouseEvent* event) override;
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  // Groove start and usable length in pixels, and the handle's length, as QSlider maps them.
  void Geometry(int* start, int* span, int* handle) const;

  QVector<Mark> marks_;
};

}  // namespace railyard::ui
