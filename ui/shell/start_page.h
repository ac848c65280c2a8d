// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>
#include <QWidget>

class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace railyard::ui {

// What the window shows while it watches nothing: the ways in (start the demo, add a node, open
// a cluster file, open a recording) and the clusters and recordings opened before. It only
// signals; the window does the opening.
//
// Thread safety: GUI thread only.
class StartPage : public QWidget {
  Q_OBJECT
 public:
  explicit StartPage(QWidget* parent = nullptr);

  // The Demo button shows only where the application can start a demo cluster.
  void SetDemoAvailable(bool available);
  // Most recent first; each list is shown under its own heading in one list.
  void SetRecent(const QStringList& clusters, const QStringList& recordings);
  QListWidget* RecentList() const { return recent_; }

 Q_SIGNALS:
  void DemoRequested();
  void AddNodeRequested();
  void OpenClusterRequested();
  void OpenRecordingRequested();
  void RecentClusterRequested(const QString& path);
  void RecentRecordingRequested(const QString& path);

 private:
  void OnRecentActivated(QListWidgetItem* item);

  QPushButton* demo_;
  QListWidget* recent_;
};

}  // namespace railyard::ui
