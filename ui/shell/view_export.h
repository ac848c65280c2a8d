// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

class QAbstractItemModel;
class QTableView;
class QWidget;

namespace railyard::ui {

// Export of whatever a tab shows, for the window's shared File > Export view action. Every view
// gives a PNG of itself as drawn (its grab()); for CSV each gives what it has: Throughput its
// visible samples, Bloom its pages (index x page figures), any other view the rows of its first
// table as shown (visible columns, header row first).
//
// Thread safety: GUI thread only.

// `model`'s rows as CSV (RFC 4180 quoting), the header row first; `table`, when given, drops the
// columns it hides.
QString ModelCsv(const QAbstractItemModel* model, const QTableView* table = nullptr);

// Writes `view` as a PNG image. False with the reason in `error`.
bool ExportViewPng(QWidget* view, const QString& path, QString* error);
// Writes what `view` can give as CSV. False with the reason in `error`, also for a view with
// nothing tabular.
bool ExportViewCsv(QWidget* view, const QString& path, QString* error);

}  // namespace railyard::ui
