// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/tab_navigation.h"

#include <QAction>
#include <QKeySequence>
#include <QMenu>
#include <QTabWidget>

namespace railyard::ui {

namespace {

void Step(QTabWidget* tabs, int by) {
  const int count = tabs->count();
  if (count > 0) tabs->setCurrentIndex((tabs->currentIndex() + by + count) % count);
}

}  // namespace

void AddTabNavigation(QTabWidget* tabs, QMenu* menu) {
  QAction* next = menu->addAction(QObject::tr("&Next tab"), tabs, [tabs] { Step(tabs, 1); });
  next->setShortcuts(
      {QKeySequence(Qt::CTRL | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageDown)});
  // Shift+Tab arrives as Key_Backtab, which Qt's shortcut map also tries as Shift+Tab.
  QAction* previous =
      menu->addAction(QObject::tr("&Previous tab"), tabs, [tabs] { Step(tabs, -1); });
  previous->setShortcuts(
      {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageUp)});
  menu->addSeparator();
  // As browsers do: Ctrl+1..8 the first eight, Ctrl+9 the last (there are more than nine).
  const int count = tabs->count();
  for (int i = 0; i < count; ++i) {
    QAction* go = menu->addAction(tabs->tabText(i), tabs, [tabs, i] { tabs->setCurrentIndex(i); });
    if (i == count - 1) {
      go->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_9));
    } else if (i < 8) {
      go->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    }
  }
}

}  // namespace railyard::ui
