// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDBusConnection>
#include <QObject>
#include <QString>
#include <vector>

#include "core/cluster/alert_evaluator.h"

class QSystemTrayIcon;

namespace railyard::ui {

class AlertModel;

// Tells the desktop when an alert fires (not when it is pending or resolves: the Alerts tab keeps
// those): a freedesktop notification (org.freedesktop.Notifications on the session bus, urgency
// critical or normal by severity) where a notification service runs, else the system tray's
// balloon where there is a tray, else nothing, which Channel() says. On by default; the View menu
// turns it off (the window keeps that in its settings). Only what fires now: not an alert of the
// past (a backfill, a seek), nor one a replay plays (SetWatchingLive(false)).
//
// Thread safety: GUI thread only.
class AlertNotifier : public QObject {
  Q_OBJECT
 public:
  enum class Channel { kNone, kFreedesktop, kTray };
  // `bus`: where to look for the notification service (the session bus by default; a test
  // passes its own).
  explicit AlertNotifier(AlertModel* model, QDBusConnection bus = QDBusConnection::sessionBus(),
                         QObject* parent = nullptr);
  ~AlertNotifier() override;

  void SetEnabled(bool enabled) { enabled_ = enabled; }
  bool Enabled() const { return enabled_; }
  // False while the window replays a recording: its alerts fired long ago. True by default.
  void SetWatchingLive(bool live) { watching_live_ = live; }
  bool WatchingLive() const { return watching_live_; }
  // Where the next notification goes, asked afresh (a notification service may come and go).
  Channel CurrentChannel() const;
  int Sent() const { return sent_; }

 Q_SIGNALS:
  // After each notification, with what it said and where it went.
  void Notified(const QString& title, const QString& body, Channel channel);

 private:
  void OnChanges(const std::vector<cluster::AlertTransition>& changes, bool past);

  QDBusConnection bus_;
  QSystemTrayIcon* tray_ = nullptr;  // Made on first use where a tray exists.
  bool enabled_ = true;
  bool watching_live_ = true;
  int sent_ = 0;
};

}  // namespace railyard::ui
