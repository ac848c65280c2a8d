// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/view_link.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QTabWidget>
#include <algorithm>
#include <iterator>

#include "core/cluster/time_span.h"
#include "ui/models/throughput_model.h"

namespace railyard::ui {

QString TabKey(const QTabWidget* tabs, int index) {
  QString title = tabs->tabText(index);
  title.remove(QLatin1Char('&'));
  return title.section(QLatin1Char(' '), 0, 0).toLower();
}

int TabIndex(const QTabWidget* tabs, const QString& key) {
  for (int i = 0; i < tabs->count(); ++i) {
    if (TabKey(tabs, i) == key.toLower()) return i;
  }
  return -1;
}

QStringList TabKeys(const QTabWidget* tabs) {
  QStringList keys;
  for (int i = 0; i < tabs->count(); ++i) keys << TabKey(tabs, i);
  return keys;
}

QString WindowText(int minutes) {
  return minutes % 60 == 0 ? QStringLiteral("%1h").arg(minutes / 60)
                           : QStringLiteral("%1m").arg(minutes);
}

int WindowMinutes(const QString& text) {
  int64_t ms = 0;
  if (!cluster::ParseTimeSpan(text.toStdString(), &ms) || ms % 60000 != 0) return 0;
  const auto& choices = ThroughputModel::kWindowChoicesMinutes;
  const int minutes = int(ms / 60000);
  return std::find(std::begin(choices), std::end(choices), minutes) != std::end(choices) ? minutes
                                                                                         : 0;
}

namespace {

QString Quoted(const QString& argument) {
  static const QRegularExpression kPlain(QStringLiteral("^[A-Za-z0-9_@%+=:,./-]+$"));
  if (kPlain.match(argument).hasMatch()) return argument;
  QString quoted = argument;
  quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
  return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

// The forms ParseTimePoint reads back; to the second, as an operator would type it.
QString UtcText(qint64 unix_ms) {
  return QDateTime::fromMSecsSinceEpoch(unix_ms, Qt::UTC)
      .toString(QStringLiteral("yyyy-MM-ddTHH:mm:ssZ"));
}

}  // namespace

QString ViewCommandLine(const ViewLink& link) {
  QStringList args{QStringLiteral("railyard")};
  args << link.source;
  if (!link.tab.isEmpty()) args << QStringLiteral("--tab") << link.tab;
  if (link.window_minutes > 0)
    args << QStringLiteral("--window") << WindowText(link.window_minutes);
  if (link.range) {
    args << QStringLiteral("--from") << UtcText(link.range->from_ms) << QStringLiteral("--to")
         << UtcText(link.range->to_ms);
  }
  if (link.at_ms) args << QStringLiteral("--at") << UtcText(*link.at_ms);
  QStringList quoted;
  for (const QString& a : args) quoted << Quoted(a);
  return quoted.join(QLatin1Char(' '));
}

}  // namespace railyard::ui
