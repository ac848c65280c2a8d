// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/start_page.h"

#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace railyard::ui {

namespace {

// Item data: the path, and whether it is a recording (else a cluster file).
constexpr int kPathRole = Qt::UserRole;
constexpr int kRecordingRole = Qt::UserRole + 1;

QPushButton* AddButton(const QString& text, const QString& tip, const char* name, QWidget* parent,
                       QLayout* layout) {
  auto* button = new QPushButton(text, parent);
  button->setObjectName(QLatin1String(name));
  button->setToolTip(tip);
  button->setMinimumHeight(button->sizeHint().height() * 3 / 2);
  layout->addWidget(button);
  return button;
}

}  // namespace

StartPage::StartPage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("start"));
  auto* title =
      new QLabel(tr("<h2>Railyard</h2><p>Watch a cluster, or replay a recording.</p>"), this);
  auto* buttons = new QVBoxLayout;
  demo_ = AddButton(tr("Start the &demo"),
                    tr("A local 3-node cluster with load clients on loopback, for this session"),
                    "startDemo", this, buttons);
  QPushButton* add = AddButton(tr("&Add node..."), tr("Watch one node by its admin address"),
                               "startAddNode", this, buttons);
  QPushButton* cluster =
      AddButton(tr("Open &cluster file..."), tr("Watch every node a cluster file lists"),
                "startOpenCluster", this, buttons);
  QPushButton* recording = AddButton(tr("Open &recording..."),
                                     tr("Replay a recording made by the console or railyardctl"),
                                     "startOpenRecording", this, buttons);
  buttons->addStretch();
  recent_ = new QListWidget(this);
  recent_->setObjectName(QStringLiteral("recent"));
  recent_->setAccessibleName(tr("Recent clusters and recordings"));
  recent_->setTextElideMode(Qt::ElideMiddle);
  auto* recent_box = new QVBoxLayout;
  recent_box->addWidget(new QLabel(tr("<b>Recent</b> (double-click or Enter to open)"), this));
  recent_box->addWidget(recent_);
  auto* row = new QHBoxLayout;
  row->addLayout(buttons, 1);
  row->addLayout(recent_box, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(title);
  layout->addLayout(row, 1);
  layout->setContentsMargins(24, 24, 24, 24);

  connect(demo_, &QPushButton::clicked, this, &StartPage::DemoRequested);
  connect(add, &QPushButton::clicked, this, &StartPage::AddNodeRequested);
  connect(cluster, &QPushButton::clicked, this, &StartPage::OpenClusterRequested);
  connect(recording, &QPushButton::clicked, this, &StartPage::OpenRecordingRequested);
  connect(recent_, &QListWidget::itemActivated, this, &StartPage::OnRecentActivated);
  SetDemoAvailable(false);
  SetRecent({}, {});
}

void StartPage::SetDemoAvailable(bool available) { demo_->setVisible(available); }

void StartPage::SetRecent(const QStringList& clusters, const QStringList& recordings) {
  recent_->clear();
  auto add = [this](const QStringList& paths, const QString& kind, bool recording) {
    for (const QString& path : paths) {
      auto* item = new QListWidgetItem(
          QStringLiteral("%1 %2 (%3)").arg(kind, QFileInfo(path).fileName(), path), recent_);
      item->setData(kPathRole, path);
      item->setData(kRecordingRole, recording);
      item->setToolTip(path);
    }
  };
  add(clusters, tr("Cluster:"), false);
  add(recordings, tr("Recording:"), true);
  if (recent_->count() == 0) {
    auto* none = new QListWidgetItem(tr("Nothing opened yet"), recent_);
    none->setFlags(Qt::NoItemFlags);
  }
}

void StartPage::OnRecentActivated(QListWidgetItem* item) {
  const QString path = item->data(kPathRole).toString();
  if (path.isEmpty()) return;
  if (item->data(kRecordingRole).toBool()) {
    Q_EMIT RecentRecordingRequested(path);
  } else {
    Q_EMIT RecentClusterRequested(path);
  }
}

}  // namespace railyard::ui
