// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QFont>
#include <QStaticText>
#include <QString>

#include "ui/views/qcustomplot_include.h"

namespace railyard::ui {

// A plottable's legend entry that lays its text out only when the text or font changes.
// QCustomPlot's own entry measures its text several times per replot (each layout pass asks
// for its size, then drawing measures again); with the throughput view's legends of two dozen
// entries replotted at 10 Hz, that text layout was most of a frame at 100 nodes. Drawn like the
// stock entry of a line graph: a short line in the plottable's pen, then its name (made for line
// graphs: a plottable with a brush or scatter symbols would lose them in the icon).
//
// Ownership: the legend owns it (QCPLegend::addItem). Thread safety: GUI thread only.
class CachedLegendItem : public QCPPlottableLegendItem {
  Q_OBJECT
 public:
  CachedLegendItem(QCPLegend* legend, QCPAbstractPlottable* plottable);

  // Adds an entry for `plottable` to its plot's legend unless it has one.
  static void AddTo(QCPAbstractPlottable* plottable);

 protected:
  void draw(QCPPainter* painter) override;
  QSize minimumOuterSizeHint() const override;

 private:
  const QStaticText& Text() const;

  mutable QStaticText text_;
  mutable QString laid_name_;
  mutable QFont laid_font_;
  mutable bool laid_ = false;
};

}  // namespace railyard::ui
