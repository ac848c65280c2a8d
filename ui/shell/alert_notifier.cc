// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/alert_notifier.h"

#include <QApplication>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QSystemTrayIcon>
#include <QVariantMap>

#include "core/cluster/alert_rules.h"
#include "ui/models/alert_model.h"

namespace railyard::ui {

namespace {

const QString kNotificationsService = QStringLiteral("org.freedesktop.Notifications");

}  // namespace

AlertNotifier::AlertNotifier(AlertModel* model, QDBusConnection bus, QObject* parent)
    : QObject(parent), bus_(std::move(bus)) {
  connect(model, &AlertModel::AlertsChanged, this, &AlertNotifier::OnChanges);
}

AlertNotifier::~AlertNotifier() = default;

AlertNotifier::Channel AlertNotifier::CurrentChannel() const {
  if (bus_.isConnected() && bus_.interface() &&
      bus_.interface()->isServiceRegistered(kNotificationsService).value()) {
    return Channel::kFreedesktop;
  }
  if (QSystemTrayIcon::isSystemTrayAvailable()) return Channel::kTray;
  return Channel::kNone;
}

void AlertNotifier::OnChanges(const std::vector<cluster::AlertTransition>& changes, bool past) {
  // What fired before the console looked, or in a recording, is in the Alerts tab's history.
  if (!enabled_ || past || !watching_live_) return;
  for (const cluster::AlertTransition& t : changes) {
    if (t.phase != cluster::AlertPhase::kFiring) continue;
    const QString title = QStringLiteral("%1 (%2)").arg(
        QString::fromStdString(t.rule), QString::fromStdString(cluster::SeverityName(t.severity)));
    const QString body = QString::fromStdString(t.summary);
    const Channel channel = CurrentChannel();
    if (channel == Channel::kFreedesktop) {
      QDBusMessage notify = QDBusMessage::createMethodCall(
          kNotificationsService, QStringLiteral("/org/freedesktop/Notifications"),
          kNotificationsService, QStringLiteral("Notify"));
      QVariantMap hints;
      // Urgency: 1 normal, 2 critical (the Desktop Notifications Specification).
      hints.insert(QStringLiteral("urgency"),
                   QVariant::fromValue<uchar>(t.severity == alerts::CRITICAL ? 2 : 1));
      notify << QStringLiteral("Railyard") << 0u << QStringLiteral("railyard") << title << body
             << QStringList() << hints << -1;
      bus_.call(notify, QDBus::NoBlock);
    } else if (channel == Channel::kTray) {
      if (!tray_) {
        tray_ = new QSystemTrayIcon(QApplication::windowIcon(), this);
        tray_->show();
      }
      tray_->showMessage(
          title, body,
          t.severity == alerts::CRITICAL ? QSystemTrayIcon::Critical : QSystemTrayIcon::Warning);
    } else {
      continue;
    }
    ++sent_;
    Q_EMIT Notified(title, body, channel);
  }
}

}  // namespace railyard::ui
