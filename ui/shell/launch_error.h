// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

class QMessageBox;
class QWidget;

namespace railyard::ui {

// Launch and open errors as a person reads them: the status code's name ("InvalidArgument: ",
// "Corruption: ") is dropped, and a message that quotes SQL or SQLite's own words (a recording
// cut short or damaged) becomes "<file> is a damaged or incomplete recording". `path`, when
// given, names the file in that message.
QString PlainReason(const QString& message, const QString& path = {});

// A warning box titled "Railyard cannot start" with `reason`, opened window-modal over `parent`
// (application-modal without one) and deleted when closed. The console shows it for a failed
// launch where there is a display; the caller decides whether to wait on it (exec()).
//
// Thread safety: GUI thread only.
QMessageBox* CreateLaunchErrorBox(const QString& reason, QWidget* parent = nullptr);

}  // namespace railyard::ui
