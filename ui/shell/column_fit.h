// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QVector>

class QTableView;

namespace railyard::ui {

// Keeps a table's columns inside its width, so that no column hides behind a horizontal
// scrollbar in a small window and a large window's spare width is shared out rather than all
// given to the last column. Each column has a preferred width: the width the view gave it (and
// any width the user drags it to), or, for a column the view sized to its contents, its contents'
// width measured when rows arrive (never per frame); when cells change, those in view are measured
// again, at most four times a second (and the rows in view when the table is scrolled or shown
// again), and a column whose contents grew wants their new width (so a figure that gains digits
// gets room at once, not when rows next come or go). When the
// preferred widths do not fit, the columns first give up what they have beyond their heading, then
// the widest give way (their text elides); when there is room, every column grows in proportion, up
// to half as wide again, and the last one takes the rest.
//
// Installs a helper owned by `table`; call once, after the view has set its column widths.
//
// Thread safety: GUI thread only.
void FitColumnsToWidth(QTableView* table);
// After FitColumnsToWidth: `column` never goes below `width` (so a node's state word stays
// readable in a small window); the other columns give way first, and only when these floors
// alone do not fit does the table scroll sideways.
void KeepColumnWidth(QTableView* table, int column, int width);
// After FitColumnsToWidth: when the columns do not fit even at their headings' and contents'
// widths, these leave the table, the first first, until the rest fit (and come back when there is
// room), rather than every column being cut. For the columns an operator can do without.
void DropColumnsWhenNarrow(QTableView* table, const QVector<int>& columns);

}  // namespace railyard::ui
