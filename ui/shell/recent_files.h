// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QStringList>
#include <functional>

class QMenu;
class QObject;

namespace railyard::ui {

// The cluster files and recordings opened before, most recent first (at most 8 of each), kept in
// QSettings as paths only (never tokens) under "recentClusters" and "recentRecordings". A
// disabled list neither reads nor writes the settings, so tests and embedded windows never see a
// user's.
//
// Thread safety: GUI thread only.
class RecentFiles {
 public:
  enum class Kind { kCluster, kRecording };

  explicit RecentFiles(bool enabled) : enabled_(enabled) {}

  // Only paths that still exist.
  QStringList List(Kind kind) const;
  void Remember(Kind kind, const QString& absolute_path);
  // Fills `menu` with the list each time it opens ("(none)" when empty); choosing a path calls
  // `open` with it. `context` owns the connections.
  void AttachMenu(QMenu* menu, Kind kind, QObject* context,
                  std::function<void(const QString&)> open) const;

 private:
  bool enabled_;
};

}  // namespace railyard::ui
