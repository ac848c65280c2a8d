#pragma once

#include <QColor>

class QCustomPlot;
class QCPRange;

namespace railyard::ui {

// Palette-aware styling for every QCustomPlot in the console (axes, grid and text follow the
// widget palette, so plots read well in light and dark themes). The plot keeps following it: a
// later palette change (QEvent::PaletteChange, as a theme switch sends) restyles and replots it.
void StylePlot(QCustomPlot* plot);
// The n-th series colour; distinct for the first ten, then repeating.
QColor SeriesColor(int n);
// The range of every graph's values within the plot's current x range; false if none has any.
bool VisibleValueRange(QCustomPlot* plot, QCPRange* range);

}  // namespace railyard::ui
