// SPDX-License-Identifier: Apache-2.0
#include "ui/compare/compare_csv.h"

#include <QFile>
#include <QTextStream>
#include <array>
#include <cmath>
#include <limits>
#include <map>

namespace railyard::ui {

namespace {

QString Cell(double v) { return std::isnan(v) ? QString() : QString::number(v, 'g', 10); }

}  // namespace

bool WriteCompareCsv(const QString& path, const RecordingSeries* a, const RecordingSeries* b,
                     const QString& node, QString* error) {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) {
    if (error) *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  // Rows by offset: both recordings' buckets, which differ only for very long recordings.
  std::map<qint64, std::array<const SeriesPoint*, 2>> rows;
  const RecordingSeries* const series[2] = {a, b};
  for (int side = 0; side < 2; ++side) {
    const RecordingSeries* s = series[side];
    const std::vector<SeriesPoint>* points = s ? s->Points(node) : nullptr;
    if (!points) continue;
    for (size_t i = 0; i < points->size(); ++i) {
      rows[qint64(i) * s->bucket_ms][size_t(side)] = &(*points)[i];
    }
  }
  QTextStream out(&file);
  out << "offset_s,a_requests_per_s,b_requests_per_s,a_errors_per_s,b_errors_per_s,"
         "a_rejections_per_s,b_rejections_per_s,a_p50_us,b_p50_us,a_p99_us,b_p99_us\n";
  for (const auto& [offset_ms, row] : rows) {
    out << double(offset_ms) / 1000.0;
    auto field = [&](auto get) {
      for (const SeriesPoint* p : row) {
        out << ',' << (p && p->snapshots > 0 ? Cell(get(*p)) : QString());
      }
    };
    field([](const SeriesPoint& p) { return double(p.requests_per_s); });
    field([](const SeriesPoint& p) { return double(p.errors_per_s); });
    field([](const SeriesPoint& p) { return double(p.rejections_per_s); });
    field([](const SeriesPoint& p) { return p.latency_snapshots ? double(p.p50_us) : kNoFigure; });
    field([](const SeriesPoint& p) { return p.latency_snapshots ? double(p.p99_us) : kNoFigure; });
    out << '\n';
  }
  out.flush();
  if (file.error() != QFile::NoError) {
    if (error) *error = QStringLiteral("writing %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

}  // namespace railyard::ui
