// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

namespace railyard::ui {

// Natural order for names an operator reads: runs of digits compare by value, so "backend-2"
// comes before "backend-10"; letters compare without case. Every sorted list of node or client
// names uses it, so the same cluster reads the same in every view.
//
// Thread safety: pure functions.

// True if `a` comes before `b`. Ties in value ("n01" and "n1") fall back to the plain strings, so
// the order is total.
bool NaturalLess(const QString& a, const QString& b);

// A string whose plain (case-sensitive, code point) order is the natural order of `name`, for
// models that sort through a sort role in a QSortFilterProxyModel.
QString NaturalSortKey(const QString& name);

}  // namespace railyard::ui
