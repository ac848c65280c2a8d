// SPDX-License-Identifier: Apache-2.0
#pragma once

// The flags that say which Prometheus server and which part of a range to read, shared by
// railyardctl record --prometheus and railyard --prometheus (each adds --prometheus and --since
// in its own words).
#include <CLI/CLI.hpp>

#include "core/cluster/prometheus_recording.h"

namespace railyard::app {

inline void AddPrometheusRangeFlags(CLI::App& app, cluster::PrometheusSourceSpec& p) {
  app.add_option("--until", p.until,
                 "With --prometheus: the range's end: now, a span ago (30m) or a UTC time "
                 "(2026-11-29T03:10:00Z)")
      ->capture_default_str();
  app.add_option("--step", p.step,
                 "With --prometheus: the time between snapshots (15s, 1m; default: the range "
                 "over 720, at least 5s)");
  app.add_option("--match", p.match,
                 "With --prometheus: label matchers for every query, e.g. job=\"railyard\"");
  app.add_option("--prometheus-token-file", p.token_file,
                 "With --prometheus: a bearer token (the file's first token)")
      ->check(CLI::ExistingFile);
  app.add_option("--prometheus-ca", p.ca_file, "With --prometheus: CAs to trust (PEM)")
      ->check(CLI::ExistingFile);
  app.add_option("--prometheus-cert", p.cert_file,
                 "With --prometheus: a client certificate for mutual TLS (PEM)")
      ->check(CLI::ExistingFile);
  app.add_option("--prometheus-key", p.key_file, "With --prometheus: its key (PEM)")
      ->check(CLI::ExistingFile);
  app.add_option("--prometheus-timeout-s", p.timeout_s, "With --prometheus: per query")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
}

}  // namespace railyard::app
