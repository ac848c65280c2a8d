// SPDX-License-Identifier: Apache-2.0
#pragma once

class QMenu;
class QTabWidget;

namespace railyard::ui {

// Adds to `menu` the keyboard ways through `tabs`, which work wherever the focus is in the window:
// Next and Previous tab (Ctrl+Tab / Ctrl+PgDown and Ctrl+Shift+Tab / Ctrl+PgUp, wrapping round)
// and one action per tab, named after it: Ctrl+1..Ctrl+8 for the first eight and Ctrl+9 for the
// last, as browsers do.
//
// The tabs must exist already; `menu` owns the actions. GUI thread only.
void AddTabNavigation(QTabWidget* tabs, QMenu* menu);

}  // namespace railyard::ui
