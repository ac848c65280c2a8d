// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>
#include <QString>
#include <QVector>
#include <limits>

#include "ui/models/throughput_model.h"

class QCustomPlot;
class QCPGraph;
class QBrush;

namespace railyard::ui {

// The lines of one series (a node, or the whole cluster) on the throughput view's three plots:
// requests/s on the first; errors/s and rejections/s on the second; p50 and p99 latency (ms) on
// the third. Latency is a gap (NaN) where nothing was served or nothing was measured (a recording
// without latency), never a line at zero.
//
// Alone (one node or the cluster) it uses one colour per line and names them "requests/s",
// "p99"...; overlaid (one set per node) the node's colour on every line, with rejections and p50
// lighter and left out of the legends, and names beginning with the node's. As a spread (an edge
// or the median of ThroughputModel::spread over hundreds of overlaid nodes) it draws requests/s,
// errors/s and p99 only, named like an overlaid node ("nodes' median p99"), in `color` or, given
// an invalid colour, without a pen (a band's edge), and may fill the band down to another spread
// set (FillDownTo).
//
// Append draws only the samples newer than those drawn, so 100 nodes at 10 Hz stay cheap, and
// redraws from scratch when the series restarted (a replay seek backwards), and redraws the span
// the series downsampled since (so the plots hold as many points as the model, not 15 minutes at
// full resolution).
//
// Thread safety: GUI thread only. Removes its graphs from the plots when destroyed; the plots must
// outlive it.
class ThroughputGraphs {
 public:
  enum class Style { kAlone, kOverlaid, kSpread };

  // `plots`: the three plots, in order, not adding new graphs to their legends themselves
  // (QCustomPlot::setAutoAddPlottableToLegend(false)): this adds its own entries. Alone, its
  // lines start in the legends; overlaid, out of them until SetInLegend(true).
  ThroughputGraphs(QCustomPlot* const* plots, Style style, const QString& node_name,
                   const QColor& color);
  ~ThroughputGraphs();
  ThroughputGraphs(const ThroughputGraphs&) = delete;
  ThroughputGraphs& operator=(const ThroughputGraphs&) = delete;

  void Append(const ThroughputModel::Series& series);
  void Clear();
  // Overlaid: the node's name in the legend and readout (a node is named by its telemetry).
  void SetNodeName(const QString& name);
  const QString& NodeName() const { return node_name_; }
  // Each legend entry reads its current, mean and max over series[first, last) (the visible
  // samples, ThroughputModel::IndicesIn). Allocates nothing but the names.
  void UpdateLegend(const ThroughputModel::Series& series, size_t first, size_t last);
  // In the legends or not; overlaid, the errors/s entry only when `errors_in` too (the errors
  // chart is often short, and a node without errors has nothing to say there).
  void SetInLegend(bool in, bool errors_in = true);
  // Whether any sample appended (drawn or not) had errors.
  bool HadErrors() const { return had_errors_; }
  bool InLegend() const { return in_legend_; }
  // Thicker lines for the node selected elsewhere in the console.
  void SetEmphasis(bool emphasis);
  // Overlaid over many nodes, a node draws its lines only while it is emphasised or in the
  // legends, and then only its main lines (requests/s, p99, and errors/s once it has had errors)
  // unless emphasised: hundreds of lines cannot be told apart, and cost several times a frame's
  // budget to draw; the view draws their spread instead (Style::kSpread). A set not drawn holds
  // no points (Append drops them, and draws the whole series again once it is drawn), so
  // hundreds of hidden nodes cost neither memory nor appends.
  void SetCrowded(bool crowded);
  // Whether its lines are drawn (see SetCrowded).
  bool Drawn() const;
  // Spread: fills the band between these lines and `lower`'s with `brush`. `lower` must outlive
  // this set.
  void FillDownTo(const ThroughputGraphs& lower, const QBrush& brush);

  // The oldest and newest samples drawn (cluster ms); -1 when none.
  qint64 FirstMs() const { return first_ms_; }
  qint64 DrawnUntilMs() const { return drawn_until_ms_; }
  int DrawnSamples() const;

  QCPGraph* requests() const { return graphs_[0]; }
  QCPGraph* errors() const { return graphs_[1]; }
  QCPGraph* rejections() const { return graphs_[2]; }
  QCPGraph* p50() const { return graphs_[3]; }
  QCPGraph* p99() const { return graphs_[4]; }

  // The value a latency line draws for `sample` (ms), NaN for a gap.
  static double LatencyMs(const ThroughputSample& sample, double us);
  // The same for this set's style (a spread's latency has no request rate of its own).
  double DrawnLatencyMs(const ThroughputSample& sample, double us) const;

 private:
  void Rename();
  void Restyle();
  void UpdateVisibility();
  // Replaces what is drawn in [from_ms, to_ms) by the series' samples there (downsampled since).
  void Redraw(const ThroughputModel::Series& series, qint64 from_ms, qint64 to_ms);

  Style style_;
  QString node_name_;
  QColor color_;
  bool emphasis_ = false;
  bool in_legend_ = true;
  bool errors_in_legend_ = true;
  bool crowded_ = false;
  bool had_errors_ = false;    // Among the samples appended.
  qint64 seen_until_ms_ = -1;  // The newest sample appended, drawn or not.
  QCPGraph* graphs_[5];
  qint64 first_ms_ = -1;
  qint64 drawn_until_ms_ = -1;
  int removed_since_squeeze_ = 0;  // Points dropped from the front since the last squeeze.
  // The series' DownsampledBeforeMs when last drawn.
  qint64 downsampled_before_ms_ = std::numeric_limits<qint64>::min();
  qint64 wide_before_ms_ = std::numeric_limits<qint64>::min();  // Its WideBeforeMs, likewise.
};

}  // namespace railyard::ui
