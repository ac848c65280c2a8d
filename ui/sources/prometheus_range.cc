// SPDX-License-Identifier: Apache-2.0
#include "ui/sources/prometheus_range.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include "core/cluster/time_span.h"

namespace railyard::ui {

namespace {

// The flags that fetch the same range again, its end as a UTC time.
QStringList ArgumentsOf(const cluster::PrometheusSourceSpec& spec, int64_t to_ms) {
  QStringList args{QStringLiteral("--prometheus"),
                   QString::fromStdString(spec.url),
                   QStringLiteral("--since"),
                   QString::fromStdString(spec.since),
                   QStringLiteral("--until"),
                   QDateTime::fromMSecsSinceEpoch(to_ms, Qt::UTC)
                       .toString(QStringLiteral("yyyy-MM-ddTHH:mm:ssZ"))};
  const std::pair<const char*, const std::string*> optional[] = {
      {"--step", &spec.step},
      {"--match", &spec.match},
      {"--prometheus-token-file", &spec.token_file},
      {"--prometheus-ca", &spec.ca_file},
      {"--prometheus-cert", &spec.cert_file},
      {"--prometheus-key", &spec.key_file},
  };
  for (const auto& [flag, value] : optional) {
    if (!value->empty()) args << QLatin1String(flag) << QString::fromStdString(*value);
  }
  return args;
}

}  // namespace

QString PrometheusCacheFolder() {
  return QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) +
         QStringLiteral("/railyard/prometheus");
}

bool FetchPrometheusRange(const cluster::PrometheusSourceSpec& spec, PrometheusRange* out,
                          QString* error) {
  const int64_t now_ms = cluster::UnixMsNow();
  cluster::PrometheusServer server;
  cluster::PrometheusHistoryOptions range;
  if (const base::Status s = cluster::ResolvePrometheusSource(spec, now_ms, &server, &range);
      !s.ok()) {
    *error = QString::fromStdString(s.message());
    return false;
  }
  const QString folder = PrometheusCacheFolder();
  if (!QDir().mkpath(folder)) {
    *error = QStringLiteral("cannot make the folder %1").arg(folder);
    return false;
  }
  const QString stem =
      folder + QLatin1Char('/') +
      QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
  QString path = stem + QStringLiteral(".rec");
  for (int i = 2; QFileInfo::exists(path) && i < 100; ++i) {
    path = stem + QStringLiteral("-%1.rec").arg(i);
  }
  PrometheusRange fetched;
  if (const base::Status s = cluster::RecordPrometheusHistory(server, range, path.toStdString(), {},
                                                              &fetched.nodes, &fetched.snapshots);
      !s.ok()) {
    *error = QString::fromStdString(s.ToString());
    return false;
  }
  fetched.recording = path;
  fetched.arguments = ArgumentsOf(spec, range.to_ms);
  *out = fetched;
  return true;
}

}  // namespace railyard::ui
