// SPDX-License-Identifier: Apache-2.0
#pragma once

class QAbstractItemModel;
class QTableView;
class QWidget;

namespace railyard::ui {

// A table of `model` as the console's lists show one (audit log, alerts, incidents): rows
// selected whole, nothing editable, no row numbers, columns sized to their contents and the last
// one stretched.
QTableView* MakeReadOnlyTable(QAbstractItemModel* model, QWidget* parent);

}  // namespace railyard::ui
