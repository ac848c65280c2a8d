// SPDX-License-Identifier: Apache-2.0
#include "ui/models/natural_order.h"

namespace railyard::ui {

namespace {

// Wide enough for any 64-bit number; a longer run of digits still sorts, only by its text.
constexpr int kDigitsWidth = 20;

}  // namespace

QString NaturalSortKey(const QString& name) {
  QString key;
  key.reserve(name.size() + kDigitsWidth);
  for (qsizetype i = 0; i < name.size();) {
    if (!name[i].isDigit()) {
      key += name[i].toLower();
      ++i;
      continue;
    }
    qsizetype end = i;
    while (end < name.size() && name[end].isDigit()) ++end;
    qsizetype first = i;  // Leading zeros carry no value.
    while (first + 1 < end && name[first] == QLatin1Char('0')) ++first;
    const qsizetype digits = end - first;
    if (digits < kDigitsWidth) key += QString(kDigitsWidth - digits, QLatin1Char('0'));
    key += QStringView(name).mid(first, digits);
    i = end;
  }
  return key;
}

bool NaturalLess(const QString& a, const QString& b) {
  const QString ka = NaturalSortKey(a);
  const QString kb = NaturalSortKey(b);
  if (ka != kb) return ka < kb;
  return a < b;
}

}  // namespace railyard::ui
