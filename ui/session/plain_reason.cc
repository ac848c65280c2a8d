// SPDX-License-Identifier: Apache-2.0
#include "ui/session/plain_reason.h"

#include <QFileInfo>
#include <QObject>
#include <QRegularExpression>

namespace railyard::ui {

QString PlainReason(const QString& message, const QString& path) {
  // Status::ToString's code names: storage's CamelCase ones and core's UPPER_CASE ones.
  static const QRegularExpression kCode(
      QStringLiteral("^(NotFound|Corruption|IOError|InvalidArgument|Busy|NoSpace|[A-Z][A-Z_]+): "));
  QString plain = message.trimmed();
  plain.remove(kCode);
  static const QRegularExpression kSql(
      QStringLiteral("\\b(SELECT|INSERT|PRAGMA|sqlite_master|SQLite code|disk image is "
                     "malformed|file is not a database)\\b"),
      QRegularExpression::CaseInsensitiveOption);
  if (kSql.match(plain).hasMatch()) {
    const QString name = path.isEmpty() ? QObject::tr("the file") : QFileInfo(path).fileName();
    return QObject::tr(
               "%1 is a damaged or incomplete recording (cut short, or changed since "
               "it was written); it cannot be replayed")
        .arg(name);
  }
  return plain;
}

}  // namespace railyard::ui
