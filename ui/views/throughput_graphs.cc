// SPDX-License-Identifier: Apache-2.0
#include "ui/views/throughput_graphs.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/views/cached_legend_item.h"
#include "ui/views/hairline_graph.h"
#include "ui/views/plot_style.h"
#include "ui/views/qcustomplot_include.h"

namespace railyard::ui {

namespace {

// Which plot each line is on, its name alone and its suffix overlaid.
struct Line {
  int plot;
  const char* alone;
  const char* overlaid;
};
constexpr Line kLines[5] = {{0, "requests/s", ""},
                            {1, "errors/s", " errors"},
                            {1, "rejections/s", " rejections"},
                            {2, "p50", " p50"},
                            {2, "p99", " p99"}};
// Alone, each line its own colour (as the view always had).
constexpr int kAloneColor[5] = {0, 3, 1, 2, 4};

// Few digits, as a legend has little room: 1234, 12.3, 0.12, 0.
QString Short(double v) {
  if (v == 0) return QStringLiteral("0");
  const double a = std::abs(v);
  return QString::number(v, 'f', a >= 100 ? 0 : a >= 10 ? 1 : 2);
}

// One legend line's figures, gathered sample by sample in time order. NaN is a sample where
// nothing was measured (latency without traffic): the mean and max skip it, "now" shows a dash.
struct LegendFigures {
  double now = std::numeric_limits<double>::quiet_NaN();
  double sum = 0;
  double max = 0;
  int measured = 0;

  void Add(double v) {
    now = v;
    if (std::isnan(v)) return;
    sum += v;
    max = measured == 0 ? v : std::max(max, v);
    ++measured;
  }
};

// "p99   now 1.20  mean 1.00  max 3.40". Latency lines print in the unit that fits (`format`
// LatencyText), rates with Short.
QString LegendName(const QString& name, const LegendFigures& f, QString (*format)(double) = Short) {
  if (f.measured == 0) return name;
  return QStringLiteral("%1   now %2  mean %3  max %4")
      .arg(name, std::isnan(f.now) ? QStringLiteral("\u2013") : format(f.now),
           format(f.sum / double(f.measured)), format(f.max));
}

}  // namespace

ThroughputGraphs::ThroughputGraphs(QCustomPlot* const* plots, Style style, const QString& node_name,
                                   const QColor& color)
    : style_(style), node_name_(node_name), color_(color) {
  for (int i = 0; i < 5; ++i) {
    QCustomPlot* plot = plots[kLines[i].plot];
    QCPGraph* graph = new HairlineGraph(plot->xAxis, plot->yAxis);  // The plot owns it.
    graph->setAdaptiveSampling(true);      // 15 minutes at 10 Hz stays cheap to draw.
    graph->data()->setAutoSqueeze(false);  // Append squeezes (see there).
    graphs_[i] = graph;
  }
  Restyle();
  Rename();
  // Overlaid, the view lists only some nodes: each removal re-lays the legend out, so a new set
  // waits to be chosen rather than being added and removed again.
  in_legend_ = errors_in_legend_ = false;
  if (style_ == Style::kAlone) SetInLegend(true);
}

ThroughputGraphs::~ThroughputGraphs() {
  for (QCPGraph* graph : graphs_) graph->parentPlot()->removeGraph(graph);
}

double ThroughputGraphs::LatencyMs(const ThroughputSample& sample, double us) {
  // No requests, no latency; and a recording without latency reports none (0), not 0 ms.
  return sample.requests_per_s > 0 && us > 0 ? us / 1000.0 : qQNaN();
}

double ThroughputGraphs::DrawnLatencyMs(const ThroughputSample& sample, double us) const {
  // A spread's lowest request rate may be 0 where its latency, over the nodes that served, is
  // not; the model leaves latency 0 where no node served.
  if (style_ == Style::kSpread) return us > 0 ? us / 1000.0 : qQNaN();
  return LatencyMs(sample, us);
}

bool ThroughputGraphs::Drawn() const {
  return style_ != Style::kOverlaid || !crowded_ || emphasis_ || in_legend_;
}

void ThroughputGraphs::Append(const ThroughputModel::Series& series) {
  if (series.empty()) return;
  if (series.back().t_ms < seen_until_ms_) Clear();  // The series restarted: redraw.
  if (!Drawn()) {
    if (drawn_until_ms_ >= 0) {  // Hidden since the last frame: let the points go.
      const bool had_errors = had_errors_;
      const qint64 seen = seen_until_ms_;
      Clear();
      had_errors_ = had_errors;
      seen_until_ms_ = seen;
    }
    for (size_t i = series.size(); i > 0 && series[i - 1].t_ms > seen_until_ms_; --i) {
      had_errors_ = had_errors_ || series[i - 1].errors_per_s > 0;
    }
    seen_until_ms_ = series.back().t_ms;
    UpdateVisibility();
    return;
  }
  if (drawn_until_ms_ >= 0 && series.DownsampledBeforeMs() > downsampled_before_ms_) {
    Redraw(series, downsampled_before_ms_, series.DownsampledBeforeMs());
  }
  downsampled_before_ms_ = series.DownsampledBeforeMs();
  if (drawn_until_ms_ >= 0 && series.WideBeforeMs() > wide_before_ms_) {
    Redraw(series, wide_before_ms_, series.WideBeforeMs());
  }
  wide_before_ms_ = series.WideBeforeMs();
  // Walk back to the first sample not drawn yet; usually one per frame.
  size_t first = series.size();
  while (first > 0 && series[first - 1].t_ms > drawn_until_ms_) --first;
  for (size_t i = first; i < series.size(); ++i) {
    const ThroughputSample& s = series[i];
    const double key = double(s.t_ms) / 1000.0;
    requests()->addData(key, s.requests_per_s);
    errors()->addData(key, s.errors_per_s);
    had_errors_ = had_errors_ || s.errors_per_s > 0;
    rejections()->addData(key, s.rejections_per_s);
    p50()->addData(key, DrawnLatencyMs(s, s.p50_us));
    p99()->addData(key, DrawnLatencyMs(s, s.p99_us));
  }
  drawn_until_ms_ = seen_until_ms_ = series.back().t_ms;
  UpdateVisibility();
  const double oldest = double(drawn_until_ms_ - ThroughputModel::kMaxWindowMs) / 1000.0;
  const int before = requests()->data()->size();
  for (QCPGraph* g : graphs_) g->data()->removeBefore(oldest);
  // QCustomPlot keeps what removeBefore drops as spare room in front (up to 1.5x the points, and
  // up to 5x behind), so a full window's graph held several times its points and grew in steps
  // for minutes after the window was full. Compacting after every quarter of the points
  // dropped holds it under about 2.25x, for a copy of each point about four times in its life.
  removed_since_squeeze_ += before - requests()->data()->size();
  if (removed_since_squeeze_ > requests()->data()->size() / 4 + 64) {
    for (QCPGraph* g : graphs_) g->data()->squeeze(true, true);
    removed_since_squeeze_ = 0;
  }
  first_ms_ = requests()->data()->isEmpty()
                  ? -1
                  : qint64(std::llround(requests()->data()->constBegin()->key * 1000.0));
}

void ThroughputGraphs::Redraw(const ThroughputModel::Series& series, qint64 from_ms, qint64 to_ms) {
  const double from_key = from_ms == std::numeric_limits<qint64>::min()
                              ? -std::numeric_limits<double>::infinity()
                              : double(from_ms) / 1000.0;
  // remove() takes both ends; keys are whole milliseconds.
  const double to_key = double(to_ms - 1) / 1000.0;
  for (QCPGraph* g : graphs_) g->data()->remove(from_key, to_key);
  size_t first = 0, last = series.size();
  while (first < last) {  // The first sample at or after from_ms.
    const size_t mid = (first + last) / 2;
    if (series[mid].t_ms < from_ms) {
      first = mid + 1;
    } else {
      last = mid;
    }
  }
  QVector<double> keys, values[5];
  for (size_t i = first; i < series.size() && series[i].t_ms < to_ms; ++i) {
    const ThroughputSample& s = series[i];
    keys << double(s.t_ms) / 1000.0;
    values[0] << s.requests_per_s;
    values[1] << s.errors_per_s;
    values[2] << s.rejections_per_s;
    values[3] << DrawnLatencyMs(s, s.p50_us);
    values[4] << DrawnLatencyMs(s, s.p99_us);
  }
  if (keys.isEmpty()) return;
  for (int i = 0; i < 5; ++i) graphs_[i]->addData(keys, values[i], true);
}

void ThroughputGraphs::Clear() {
  for (QCPGraph* g : graphs_) g->data()->clear();
  first_ms_ = -1;
  drawn_until_ms_ = seen_until_ms_ = -1;
  downsampled_before_ms_ = std::numeric_limits<qint64>::min();
  wide_before_ms_ = std::numeric_limits<qint64>::min();
  had_errors_ = false;
  removed_since_squeeze_ = 0;
}

int ThroughputGraphs::DrawnSamples() const { return requests()->data()->size(); }

void ThroughputGraphs::SetNodeName(const QString& name) {
  if (name == node_name_) return;
  node_name_ = name;
  Rename();
}

void ThroughputGraphs::Rename() {
  for (int i = 0; i < 5; ++i) {
    const QString name = style_ == Style::kAlone
                             ? QString::fromLatin1(kLines[i].alone)
                             : node_name_ + QString::fromLatin1(kLines[i].overlaid);
    graphs_[i]->setName(name);
    graphs_[i]->setProperty("readout_name", i == 0 && style_ != Style::kAlone
                                                ? node_name_ + QStringLiteral(" requests/s")
                                                : name);
  }
}

void ThroughputGraphs::Restyle() {
  if (style_ == Style::kSpread) {
    // No colour: a band's edge, drawn by its fill alone.
    const QPen pen = color_.isValid() ? QPen(color_, emphasis_ ? 2 : 1) : QPen(Qt::NoPen);
    for (QCPGraph* graph : graphs_) graph->setPen(pen);
    return;
  }
  // Overlaid, thin lines: a wide pen costs far more to draw, and there are many.
  // Emphasised, 2 px: drawn as hairlines side by side (HairlineGraph), far cheaper than a wider
  // pen.
  const double width = style_ == Style::kAlone ? (emphasis_ ? 2 : 1.5) : (emphasis_ ? 2 : 1);
  for (int i = 0; i < 5; ++i) {
    QPen pen(style_ == Style::kAlone ? SeriesColor(kAloneColor[i]) : color_, width);
    // Overlaid, the secondary line of a plot is the node's colour, lighter and thin (a dashed or
    // translucent pen costs several times a solid one to draw: 100 nodes at 10 Hz cannot pay).
    if (style_ == Style::kOverlaid && (i == 2 || i == 3)) {
      pen = QPen(color_.lighter(140), 1);
    }
    graphs_[i]->setPen(pen);
  }
}

void ThroughputGraphs::SetEmphasis(bool emphasis) {
  if (emphasis == emphasis_) return;
  emphasis_ = emphasis;
  Restyle();
  UpdateVisibility();
}

void ThroughputGraphs::SetCrowded(bool crowded) {
  if (crowded == crowded_) return;
  crowded_ = crowded;
  UpdateVisibility();
}

void ThroughputGraphs::FillDownTo(const ThroughputGraphs& lower, const QBrush& brush) {
  for (int i = 0; i < 5; ++i) {
    graphs_[i]->setBrush(brush);
    graphs_[i]->setChannelFillGraph(lower.graphs_[i]);
  }
}

void ThroughputGraphs::UpdateVisibility() {
  if (style_ == Style::kSpread) {
    rejections()->setVisible(false);
    p50()->setVisible(false);
    return;
  }
  const bool all = style_ == Style::kAlone || !crowded_ || emphasis_;
  const bool main = Drawn();
  requests()->setVisible(main);
  p99()->setVisible(main);
  errors()->setVisible(all || (main && had_errors_));
  rejections()->setVisible(all);
  p50()->setVisible(all);
}

void ThroughputGraphs::SetInLegend(bool in, bool errors_in) {
  errors_in = in && errors_in;
  if (in == in_legend_ && errors_in == errors_in_legend_) return;
  in_legend_ = in;
  errors_in_legend_ = errors_in;
  UpdateVisibility();
  for (int i = 0; i < 5; ++i) {
    const bool listed = style_ == Style::kAlone || (i != 2 && i != 3 && (i != 1 || errors_in));
    if (in && listed) {
      CachedLegendItem::AddTo(graphs_[i]);
    } else {
      graphs_[i]->removeFromLegend();
    }
  }
}

void ThroughputGraphs::UpdateLegend(const ThroughputModel::Series& series, size_t first,
                                    size_t last) {
  if (!in_legend_) return;
  LegendFigures figures[5];
  for (size_t i = first; i < last; ++i) {
    const ThroughputSample& s = series[i];
    figures[0].Add(s.requests_per_s);
    figures[1].Add(s.errors_per_s);
    figures[2].Add(s.rejections_per_s);
    figures[3].Add(DrawnLatencyMs(s, s.p50_us));  // As drawn.
    figures[4].Add(DrawnLatencyMs(s, s.p99_us));
  }
  for (int i = 0; i < 5; ++i) {
    const QString base = style_ == Style::kAlone
                             ? QString::fromLatin1(kLines[i].alone)
                             : node_name_ + QString::fromLatin1(kLines[i].overlaid);
    graphs_[i]->setName(LegendName(base, figures[i], kLines[i].plot == 2 ? LatencyText : Short));
  }
}

}  // namespace railyard::ui
