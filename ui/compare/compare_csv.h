// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include "ui/compare/recording_series.h"

namespace railyard::ui {

// Writes `node`'s series (empty: the cluster's) of recordings A and B (either may be null) as
// CSV: a header line, then one line per time bucket from the recordings' starts: offset_s, then
// a_ and b_ columns for requests_per_s, errors_per_s, rejections_per_s, p50_us and p99_us. A cell
// is empty where that side has no such bucket or node, nothing reported in the bucket (a gap), or
// no latency was measured. False with a message naming the file if it cannot be written.
bool WriteCompareCsv(const QString& path, const RecordingSeries* a, const RecordingSeries* b,
                     const QString& node, QString* error);

}  // namespace railyard::ui
