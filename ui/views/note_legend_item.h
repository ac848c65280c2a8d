// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include "ui/views/qcustomplot_include.h"

namespace railyard::ui {

// A legend line of text with no plottable behind it: what a crowded legend leaves out ("39 more
// replicas, lower lag"). Set in the legend's font and text colour, in italics, with no icon.
//
// Ownership: the legend owns it (QCPLegend::addItem). Thread safety: GUI thread only.
class NoteLegendItem : public QCPAbstractLegendItem {
  Q_OBJECT
 public:
  explicit NoteLegendItem(QCPLegend* legend);

  void SetText(const QString& text);
  QString Text() const { return text_; }

 protected:
  void draw(QCPPainter* painter) override;
  QSize minimumOuterSizeHint() const override;

 private:
  QFont NoteFont() const;

  QString text_;
};

}  // namespace railyard::ui
