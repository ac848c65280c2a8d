// SPDX-License-Identifier: Apache-2.0
#pragma once

// What opens the same view again, on this machine or a colleague's: a `railyard` command line
// with the window's source (a cluster file, nodes, a recording, a Prometheus range), its tab,
// its Throughput window, the time range its charts show when they do not follow the newest
// samples and, in a replay, its position. Tokens are never in it.

#include <QString>
#include <QStringList>
#include <QtGlobal>
#include <optional>

#include "ui/views/time_window.h"

class QTabWidget;

namespace railyard::ui {

struct ViewLink {
  QStringList source;      // E.g. {"--cluster", "prod.textproto"}; each element one argument.
  QString tab;             // TabKey's.
  int window_minutes = 0;  // 0: not said.
  std::optional<TimeWindow> range;  // Charts held on a range (Unix ms): `--from T --to T`.
  std::optional<qint64> at_ms;      // A replay's position (Unix ms).
};

// A tab's key on the command line (`--tab`): the first word of its title, lower case, without
// its mnemonic ("Audit log" -> "audit").
QString TabKey(const QTabWidget* tabs, int index);
// The tab of `key`; -1 if none.
int TabIndex(const QTabWidget* tabs, const QString& key);
// Every tab's key, for --help and errors.
QStringList TabKeys(const QTabWidget* tabs);

// "1m", "15m", "1h", "24h" for a Throughput window; and back (0 if not one of the windows).
QString WindowText(int minutes);
int WindowMinutes(const QString& text);

// The command line, each argument quoted for a POSIX shell where it needs it.
QString ViewCommandLine(const ViewLink& link);

}  // namespace railyard::ui
