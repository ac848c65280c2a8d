// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>
#include <QString>

class QCustomPlot;
class QCPRange;

namespace railyard::ui {

// Palette-aware styling for every QCustomPlot in the console (axes, grid and text follow the
// widget palette, so plots read well in light and dark themes). The plot keeps following it: a
// later palette change (QEvent::PaletteChange, as a theme switch sends) restyles and replots it.
void StylePlot(QCustomPlot* plot);
// The n-th series colour; distinct for the first ten, then repeating.
QColor SeriesColor(int n);
// The range of every shown graph's values within the plot's current x range (a hidden one is not
// drawn, so it does not stretch the axis); false if none has any. `positive_only` counts only
// values above zero (for a logarithmic axis).
bool VisibleValueRange(QCustomPlot* plot, QCPRange* range, bool positive_only = false);
// The same within `keys` instead of the plot's x range.
bool ValueRangeIn(QCustomPlot* plot, const QCPRange& keys, QCPRange* range,
                  bool positive_only = false);
// For a logarithmic axis: from the power of ten below `positive` (less 20%) to the one above it
// (plus 20%), so every value has room and the axis shows labelled decades at both ends.
QCPRange DecadesAround(const QCPRange& positive);
// A linear axis for figures that start at zero (rates, errors, lag), up to `upper`: its 0 sits
// a little above the bottom, so a series at 0 draws as a line of its own instead of hiding under
// the axis line, where it read the same as a gap (no data).
QCPRange FromZero(double upper);
// A latency given in ms, in the unit that fits it, as legends and readouts print it: "40 µs"
// below a millisecond (a fixed "0.00 ms" would hide it), "1.25 ms", "23.4 ms", "120 ms" above;
// a dash for NaN (nothing measured).
QString LatencyText(double ms);
// Legend rows that fit whole in the plot's chart (an entry's own height where the legend has one,
// else its font's), one kept free (for a selected node, or a line saying what is not listed).
int LegendRowsFitting(const QCustomPlot* plot);

}  // namespace railyard::ui
