// SPDX-License-Identifier: Apache-2.0
#include "ui/views/time_range_dialog.h"

#include <QDateTime>
#include <QDateTimeEdit>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace railyard::ui {
namespace {

QDateTimeEdit* NewTimeEdit(QWidget* parent) {
  auto* edit = new QDateTimeEdit(parent);
  edit->setDisplayFormat("yyyy-MM-dd hh:mm:ss");
  edit->setCalendarPopup(true);
  edit->setTimeSpec(Qt::LocalTime);
  return edit;
}

}  // namespace

TimeRangeDialog::TimeRangeDialog(const TimeWindow& initial, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Show a time range"));
  from_ = NewTimeEdit(this);
  to_ = NewTimeEdit(this);
  problem_ = new QLabel(this);
  problem_->setWordWrap(true);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  auto* form = new QFormLayout;
  form->addRow(tr("&From:"), from_);
  form->addRow(tr("&To:"), to_);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(
      tr("The charts stop following the newest samples and show this range (local time). "
         "Double-click a chart or press Follow to follow again."),
      this));
  layout->addLayout(form);
  layout->addWidget(problem_);
  layout->addWidget(buttons_);
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(from_, &QDateTimeEdit::dateTimeChanged, this, &TimeRangeDialog::Check);
  connect(to_, &QDateTimeEdit::dateTimeChanged, this, &TimeRangeDialog::Check);
  SetRange(initial);
}

TimeRangeDialog* TimeRangeDialog::Ask(const TimeWindow& initial, QWidget* parent,
                                      std::function<void(const TimeWindow&)> shown) {
  auto* dialog = new TimeRangeDialog(initial, parent);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  QObject::connect(dialog, &QDialog::accepted, parent,
                   [dialog, shown = std::move(shown)] { shown(dialog->Range()); });
  dialog->open();
  return dialog;
}

TimeWindow TimeRangeDialog::Range() const {
  return {from_->dateTime().toMSecsSinceEpoch(), to_->dateTime().toMSecsSinceEpoch()};
}

void TimeRangeDialog::SetRange(const TimeWindow& range) {
  // To the second, as the fields show it: what is accepted is what the operator saw.
  from_->setDateTime(QDateTime::fromMSecsSinceEpoch(range.from_ms / 1000 * 1000));
  to_->setDateTime(QDateTime::fromMSecsSinceEpoch((range.to_ms + 999) / 1000 * 1000));
  Check();
}

bool TimeRangeDialog::CanAccept() const {
  return buttons_->button(QDialogButtonBox::Ok)->isEnabled();
}

void TimeRangeDialog::Check() {
  const TimeWindow range = Range();
  const bool ok = range.to_ms > range.from_ms;
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(ok);
  problem_->setText(ok ? QString() : tr("The end must come after the start."));
  problem_->setVisible(!ok);
}

}  // namespace railyard::ui
