// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>
#include <QtGlobal>
#include <functional>

#include "ui/views/time_window.h"

class QDateTimeEdit;
class QDialogButtonBox;
class QLabel;

namespace railyard::ui {

// Asks for a custom time range, as Grafana's picker does: a start and an end to the second, in
// local time, shown first with the range the charts show now. OK stays disabled (with the reason
// beside it) until the end is after the start.
//
// Thread safety: GUI thread only.
class TimeRangeDialog : public QDialog {
  Q_OBJECT
 public:
  TimeRangeDialog(const TimeWindow& initial, QWidget* parent = nullptr);
  // Opens one window-modal over `parent`, deleted when closed, that calls `shown` with the range
  // on OK; returns it (tests fill it in).
  static TimeRangeDialog* Ask(const TimeWindow& initial, QWidget* parent,
                              std::function<void(const TimeWindow&)> shown);

  // The range entered (Unix ms); valid once accepted.
  TimeWindow Range() const;
  void SetRange(const TimeWindow& range);
  QDateTimeEdit* FromEdit() const { return from_; }
  QDateTimeEdit* ToEdit() const { return to_; }
  bool CanAccept() const;

 private:
  void Check();

  QDateTimeEdit* from_;
  QDateTimeEdit* to_;
  QLabel* problem_;
  QDialogButtonBox* buttons_;
};

}  // namespace railyard::ui
