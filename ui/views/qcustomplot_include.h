// SPDX-License-Identifier: Apache-2.0
#pragma once

// Include QCustomPlot through this header. Railyard builds with QT_NO_KEYWORDS (Qt's `signals`,
// `slots` and `emit` macros would clash with ordinary names), but qcustomplot.h spells its
// signals with the keywords and uses `foreach` in templates; map them to the Q_ macros for the
// length of the include only.
#ifdef QT_NO_KEYWORDS
#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef emit
#undef foreach
#else
#include <qcustomplot.h>
#endif
