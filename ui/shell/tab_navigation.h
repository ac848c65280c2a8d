// SPDX-License-Identifier: Apache-2.0
#pragma once

class QMenu;
class QTabWidget;

namespace railyard::ui {

// Adds to `menu` the keyboard ways through `tabs`, which work wherever the focus is in the window:
// Next and Previous tab (Ctrl+Tab / Ctrl+PgDown and Ctrl+Shift+Tab / Ctrl+PgUp, wrapping round)
// and one action per tab (Ctrl+1..Ctrl+9 for the first nine), named after the tab.
//
// The tabs must exist already; `menu` owns the actions. GUI thread only.
void AddTabNavigation(QTabWidget* tabs, QMenu* menu);

}  // namespace railyard::ui
