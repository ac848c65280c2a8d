// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

namespace railyard::ui {

// One CSV field (RFC 4180): as it is, or quoted with its quotes doubled where it holds a comma, a
// quote or a line break.
inline QString CsvField(QString text) {
  if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
      !text.contains(QLatin1Char('\n'))) {
    return text;
  }
  text.replace(QStringLiteral("\""), QStringLiteral("\"\""));
  return QLatin1Char('"') + text + QLatin1Char('"');
}

}  // namespace railyard::ui
