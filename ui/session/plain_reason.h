// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

namespace railyard::ui {

// Launch and open errors as a person reads them: the status code's name ("InvalidArgument: ",
// "Corruption: ") is dropped, and a message that quotes SQL or SQLite's own words (a recording
// cut short or damaged) becomes "<file> is a damaged or incomplete recording". `path`, when
// given, names the file in that message.
QString PlainReason(const QString& message, const QString& path = {});

}  // namespace railyard::ui
