// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QVector>

class QDialog;
class QMenuBar;
class QWidget;

namespace railyard::ui {

// The Help menu's two windows: the keyboard shortcuts, read from the menus' actions each time so
// the list follows any change to them, and a short glossary of the console's words.
//
// Thread safety: GUI thread only.

struct ShortcutRow {
  QString menu;    // "Node"
  QString action;  // "Drain" (mnemonics and trailing dots dropped)
  QString keys;    // "Ctrl+Shift+D", alternatives joined by ", " in the native format
};

// Every action with a shortcut in `menus` (submenus included), in menu order.
QVector<ShortcutRow> ShortcutRows(const QMenuBar* menus);

// A non-modal dialog listing ShortcutRows(menus) at the time it opens; `parent` owns it.
QDialog* CreateShortcutsDialog(const QMenuBar* menus, QWidget* parent);

// The glossary as HTML (slot, pool, lame duck, compaction set, Bloom page usefulness, recording,
// updater, replica, lag), worded as docs/architecture.md and docs/guide.md say it.
QString GlossaryHtml();
QDialog* CreateGlossaryDialog(QWidget* parent);

}  // namespace railyard::ui
