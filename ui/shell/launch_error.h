// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

class QMessageBox;
class QWidget;

namespace railyard::ui {

// A warning box titled "Railyard cannot start" with `reason`, opened window-modal over `parent`
// (application-modal without one) and deleted when closed. The console shows it for a failed
// launch where there is a display; the caller decides whether to wait on it (exec()).
//
// Thread safety: GUI thread only.
QMessageBox* CreateLaunchErrorBox(const QString& reason, QWidget* parent = nullptr);

}  // namespace railyard::ui
