// SPDX-License-Identifier: Apache-2.0
#pragma once

// A time range from a Prometheus server, fetched into a recording the console replays
// (core/cluster/prometheus_recording.h), kept in the user's cache folder so that it stays
// replayable (Recent files too): for railyard --prometheus and File > Open Prometheus range.

#include <QString>
#include <QStringList>
#include <cstdint>

#include "core/cluster/prometheus_recording.h"

namespace railyard::ui {

struct PrometheusRange {
  QString recording;      // ~/.cache/railyard/prometheus/<UTC time>.rec
  QStringList arguments;  // The console's flags that fetch it again, its end as a UTC time.
  size_t nodes = 0;
  uint64_t snapshots = 0;
};

// Where fetched ranges are kept.
QString PrometheusCacheFolder();

// Fetches `spec`'s range (as of now) into a new recording. False with a message for people in
// `error`. Blocks until the queries end, each within spec.timeout_s: call it off the GUI thread
// where a window is up. Thread safety: callable from any thread.
bool FetchPrometheusRange(const cluster::PrometheusSourceSpec& spec, PrometheusRange* out,
                          QString* error);

}  // namespace railyard::ui
