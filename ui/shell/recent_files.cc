// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/recent_files.h"

#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace railyard::ui {

namespace {

constexpr int kMaxRecent = 8;

QString KeyOf(RecentFiles::Kind kind) {
  return kind == RecentFiles::Kind::kCluster ? QStringLiteral("recentClusters")
                                             : QStringLiteral("recentRecordings");
}

}  // namespace

QStringList RecentFiles::List(Kind kind) const {
  if (!enabled_) return {};
  QStringList paths = QSettings().value(KeyOf(kind)).toStringList();
  // A file moved or deleted since (a temporary recording) is not offered.
  paths.removeIf([](const QString& path) { return !QFileInfo::exists(path); });
  return paths;
}

void RecentFiles::Remember(Kind kind, const QString& absolute_path) {
  if (!enabled_) return;
  QSettings settings;
  QStringList recent = settings.value(KeyOf(kind)).toStringList();
  recent.removeAll(absolute_path);
  recent.prepend(absolute_path);
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue(KeyOf(kind), recent);
}

void RecentFiles::AttachMenu(QMenu* menu, Kind kind, QObject* context,
                             std::function<void(const QString&)> open) const {
  QObject::connect(menu, &QMenu::aboutToShow, context, [this, menu, kind, context, open] {
    menu->clear();
    for (const QString& path : List(kind)) {
      menu->addAction(path, context, [open, path] { open(path); });
    }
    if (menu->isEmpty()) menu->addAction(QObject::tr("(none)"))->setEnabled(false);
  });
}

}  // namespace railyard::ui
