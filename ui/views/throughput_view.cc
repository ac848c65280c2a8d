// SPDX-License-Identifier: Apache-2.0
#include "ui/views/throughput_view.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <climits>
#include <cmath>

#include "ui/support/color_mix.h"
#include "ui/views/plot_crosshair.h"
#include "ui/views/plot_event_marks.h"
#include "ui/views/plot_style.h"
#include "ui/views/qcustomplot_include.h"
#include "ui/views/throughput_graphs.h"
#include "ui/views/throughput_marks.h"
#include "ui/views/time_axis_drag.h"
#include "ui/views/time_range_dialog.h"

namespace railyard::ui {

namespace {

// Node n's colour overlaid: the palette's ten, then darker and lighter rounds of them, so nodes
// 3 and 13 are told apart.
QColor OverlayColor(int node) {
  const QColor base = SeriesColor(node);
  switch ((node / 10) % 3) {
    case 1:
      return base.darker(150);
    case 2:
      return base.lighter(140);
    default:
      return base;
  }
}

}  // namespace

ThroughputView::ThroughputView(ClusterState* state, QWidget* parent)
    : ThroughputView(new ThroughputModel(state), parent) {
  model_->setParent(this);
}

ThroughputView::ThroughputView(ThroughputModel* model, QWidget* parent)
    : QWidget(parent), state_(model->State()), model_(model) {
  title_ = new QLabel(this);
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
  show_ = new QComboBox(this);
  show_->addItem(tr("Each node"), int(Show::kEachNode));
  show_->addItem(tr("Selected node"), int(Show::kOneNode));
  show_->addItem(tr("Whole cluster"), int(Show::kWholeCluster));
  show_->setToolTip(
      tr("Each node overlaid, the node selected in the other views, or the sums "
         "over every node."));
  window_ = new QComboBox(this);
  for (int minutes : ThroughputModel::kWindowChoicesMinutes) {
    window_->addItem(WindowChoiceText(minutes), minutes);
  }
  window_->setCurrentIndex(1);
  window_->setToolTip(
      tr("How much time the charts show; past 15 minutes, in 1-minute buckets (each one's lowest, "
         "mean and highest). Drag across a chart to zoom there, Shift+drag to pan, scroll to zoom; "
         "double-click to follow the newest samples again."));
  range_ = new QPushButton(tr("Range\u2026"), this);
  range_->setToolTip(tr("Show a custom time range: a start and an end."));
  pause_ = new QPushButton(tr("Pause"), this);
  pause_->setCheckable(true);
  follow_ = new QPushButton(tr("Follow"), this);
  follow_->setToolTip(tr("Scroll with the newest samples again after zooming or panning."));
  png_ = new QPushButton(tr("Export PNG\u2026"), this);
  csv_ = new QPushButton(tr("Export CSV\u2026"), this);
  csv_->setToolTip(tr("The samples in the visible time range."));

  // The p50 lines have no legend entries of their own (C16): the axis says which line is which.
  const char* labels[3] = {"requests/s", "errors, rej. /s", "ms: p99, p50 faint"};
  layout_ = new QVBoxLayout(this);
  auto* controls = new QHBoxLayout;
  controls->addWidget(title_, 1);
  controls->addWidget(new QLabel(tr("Show:"), this));
  controls->addWidget(show_);
  controls->addWidget(new QLabel(tr("Window:"), this));
  controls->addWidget(window_);
  controls->addWidget(range_);
  controls->addWidget(pause_);
  controls->addWidget(follow_);
  controls->addWidget(png_);
  controls->addWidget(csv_);
  layout_->addLayout(controls);
  QCPMarginGroup* margins = nullptr;
  for (int i = 0; i < 3; ++i) {
    QCustomPlot* plot = new QCustomPlot(this);
    plots_[i] = plot;
    // Owned by the first plot, which is deleted first; the group then lets go of the others.
    if (i == 0) margins = new QCPMarginGroup(plot);
    StylePlot(plot);
    plot->setMinimumHeight(i == 1 ? 110 : 120);
    QSharedPointer<QCPAxisTickerDateTime> ticker(new QCPAxisTickerDateTime);
    ticker->setDateTimeFormat("hh:mm:ss");
    plot->xAxis->setTicker(ticker);
    plot->yAxis->setLabel(tr(labels[i]));
    // As a dashboard does: drag to zoom, Shift+drag to pan, a double-click leaves a zoom or pan
    // for the newest samples; any of them stops scrolling.
    auto* drag = new TimeAxisDrag(plot);
    connect(drag, &TimeAxisDrag::Taken, this, [this] { following_ = false; });
    connect(drag, &TimeAxisDrag::FollowAsked, this, &ThroughputView::Follow);
    // The same left and right margins on all three, so one time is one x on every chart.
    plot->axisRect()->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    plot->legend->setVisible(true);
    plot->setAutoAddPlottableToLegend(false);  // ThroughputGraphs adds its own entries.
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    connect(plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            &ThroughputView::SyncRanges);
    layout_->addWidget(plot, 2);
  }
  QCPAxis* latency = plots_[2]->yAxis;
  latency->setScaleType(QCPAxis::stLogarithmic);
  latency->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  latency->setNumberFormat("gb");
  plots_[1]->yAxis->ticker()->setTickCount(3);  // Often a short chart.
  latency_notice_ = new QLabel(plots_[2]);
  latency_notice_->setAttribute(Qt::WA_TransparentForMouseEvents);
  latency_notice_->hide();
  marks_ = std::make_unique<PlotEventMarks>(QVector<QCustomPlot*>{plots_[0], plots_[1], plots_[2]});
  crosshair_ = new PlotCrosshair({plots_[0], plots_[1], plots_[2]}, this);
  crosshair_->SetValueFormat(2, LatencyText);
  settle_ = new QTimer(this);
  settle_->setSingleShot(true);
  settle_->setInterval(kLegendSettleMs);
  connect(settle_, &QTimer::timeout, this, [this] {
    if (!isVisible()) return;  // Shown again, it applies its range, legends included.
    RefreshLegendFigures(true, NewestDrawnMs());
    charts_behind_ = false;
    for (QCustomPlot* plot : plots_) {
      plot->replot(QCustomPlot::rpQueuedReplot);
      ++replot_requests_;
    }
  });

  connect(show_, &QComboBox::activated, this,
          [this](int index) { SetShow(Show(show_->itemData(index).toInt())); });
  connect(window_, &QComboBox::currentIndexChanged, this,
          [this](int index) { SetWindowMinutes(window_->itemData(index).toInt()); });
  connect(range_, &QPushButton::clicked, this, &ThroughputView::AskRange);
  connect(pause_, &QPushButton::toggled, this, &ThroughputView::SetPaused);
  connect(follow_, &QPushButton::clicked, this, &ThroughputView::Follow);
  connect(png_, &QPushButton::clicked, this, &ThroughputView::ExportPngInteractive);
  connect(csv_, &QPushButton::clicked, this, &ThroughputView::ExportCsvInteractive);
  connect(model_, &ThroughputModel::SamplesAdded, this, &ThroughputView::OnSamples);
  connect(model_, &ThroughputModel::Cleared, this, &ThroughputView::Rebuild);
  Rebuild();
}

ThroughputView::~ThroughputView() = default;

void ThroughputView::SetNode(int node_index) {
  selected_node_ = node_index;
  if (built_ == Show::kEachNode && Shown() == Show::kEachNode) {
    // Overlaid, only the emphasis and the legend change: no redraw of every node.
    AppendNew();
    ApplyRange();
  } else if (built_ != Shown() || Node() != built_node_) {
    Rebuild();
  }
}

ThroughputView::Show ThroughputView::Shown() const {
  if (chosen_) return *chosen_;
  return state_->NodeCount() > 1 ? Show::kEachNode : Show::kOneNode;
}

void ThroughputView::SetShow(Show show) {
  if (show == Show::kWholeCluster && Shown() != Show::kWholeCluster) before_cluster_ = chosen_;
  chosen_ = show;
  Rebuild();
}

void ThroughputView::SetWholeCluster(bool whole) {
  if (whole) {
    SetShow(Show::kWholeCluster);
  } else if (Shown() == Show::kWholeCluster) {
    chosen_ = before_cluster_;
    Rebuild();
  }
}

int ThroughputView::Node() const {
  return Shown() == Show::kWholeCluster ? ThroughputModel::kCluster : selected_node_;
}

bool ThroughputView::SetWindowMinutes(int minutes) {
  if (!model_->SetWindowMinutes(minutes)) return false;
  const int index = window_->findData(minutes);
  if (index != window_->currentIndex()) window_->setCurrentIndex(index);
  following_ = true;
  ApplyRange();
  return true;
}

void ThroughputView::SetPaused(bool paused) {
  paused_ = paused;
  if (pause_->isChecked() != paused) pause_->setChecked(paused);
  pause_->setText(paused ? tr("Resume") : tr("Pause"));
  if (!paused && behind_) OnSamples();
}

void ThroughputView::Follow() {
  following_ = true;
  ApplyRange();
}

void ThroughputView::ShowAround(qint64 t_ms) {
  following_ = false;
  const double half = std::max(30.0, plots_[0]->xAxis->range().size() / 2);
  const QCPRange range(double(t_ms) / 1000.0 - half, double(t_ms) / 1000.0 + half);
  applying_range_ = true;
  for (QCustomPlot* plot : plots_) plot->xAxis->setRange(range);
  applying_range_ = false;
  ApplyRange();
}

void ThroughputView::ShowRange(qint64 from_ms, qint64 to_ms) {
  following_ = false;
  const TimeWindow range = OrderedRange(from_ms, to_ms, qint64(TimeAxisDrag::kMinRangeS * 1000));
  applying_range_ = true;
  for (QCustomPlot* plot : plots_) {
    plot->xAxis->setRange(double(range.from_ms) / 1000.0, double(range.to_ms) / 1000.0);
  }
  applying_range_ = false;
  ApplyRange();
}

std::optional<TimeWindow> ThroughputView::FixedRange() const {
  if (following_) return std::nullopt;
  return TimeWindow{VisibleFromMs(), VisibleToMs()};
}

TimeRangeDialog* ThroughputView::AskRange() {
  return TimeRangeDialog::Ask(
      {VisibleFromMs(), VisibleToMs()}, this,
      [this](const TimeWindow& range) { ShowRange(range.from_ms, range.to_ms); });
}

void ThroughputView::SetRecordingSpan(qint64 start_ms, qint64 end_ms) {
  recording_ = {start_ms, end_ms};
  following_ = true;
  Rebuild();
}

void ThroughputView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (behind_) OnSamples();
}

void ThroughputView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() != QEvent::PaletteChange || !spread_[0]) return;
  for (auto& set : spread_) set.reset();
  AppendNew();  // Built again in the new colours, with every sample.
  ApplyRange();
}

void ThroughputView::OnSamples() {
  if (paused_ || !isVisible()) {
    behind_ = true;  // Nothing drawn while nobody looks.
    return;
  }
  behind_ = false;
  // The second node to arrive turns the default into the overlay.
  if (Shown() != built_) {
    Rebuild();
    return;
  }
  UpdateTitle();  // A node is named by its address until its first telemetry names it.
  AppendNew();
  ApplyRange(/*frame=*/true);
  crosshair_->Refresh();
}

QString ThroughputView::Title() const { return title_->text(); }

void ThroughputView::UpdateTitle() {
  const int node = Node();
  const QString title = built_ == Show::kEachNode ? tr("Each node (%1)").arg(state_->NodeCount())
                        : node == ThroughputModel::kCluster ? tr("Whole cluster")
                        : node < state_->NodeCount()        ? state_->Node(node).name
                                                            : tr("Node %1").arg(node);
  if (title_->text() != title) title_->setText(title);
  const int index = show_->findData(int(built_));
  if (index != show_->currentIndex()) show_->setCurrentIndex(index);
  for (size_t i = 0; built_ == Show::kEachNode && i < sets_.size(); ++i) {
    sets_[i]->SetNodeName(state_->Node(sources_[i]).name);
  }
}

void ThroughputView::Rebuild() {
  fitted_to_key_ = qQNaN();  // The next fit scans everything.
  for (auto& set : spread_) set.reset();
  sets_.clear();
  sources_.clear();
  ranked_sets_ = 0;
  legend_figures_at_ms_ = -1;  // The new sets' entries have no figures yet: all of them at once.
  built_ = Shown();
  built_node_ = Node();
  if (built_ != Show::kEachNode) {
    sets_.push_back(std::make_unique<ThroughputGraphs>(plots_, ThroughputGraphs::Style::kAlone,
                                                       QString(), QColor()));
    sources_.push_back(built_node_);
  }
  marks_stale_ = true;
  UpdateTitle();
  AppendNew();
  ApplyRange();
}

void ThroughputView::AppendNew() {
  if (built_ == Show::kEachNode) {
    // A set per node with samples, in node order so each keeps its colour.
    for (int node = 0; node < state_->NodeCount(); ++node) {
      if (std::find(sources_.begin(), sources_.end(), node) != sources_.end()) continue;
      if (model_->series(node).empty()) continue;
      sets_.push_back(std::make_unique<ThroughputGraphs>(
          plots_, ThroughputGraphs::Style::kOverlaid, state_->Node(node).name, OverlayColor(node)));
      sources_.push_back(node);
    }
  }
  const bool crowded = built_ == Show::kEachNode && int(sets_.size()) > kCrowdedNodes;
  UpdateSpread(crowded);
  for (size_t i = 0; i < sets_.size(); ++i) {
    sets_[i]->SetCrowded(crowded);
    sets_[i]->SetEmphasis(built_ == Show::kEachNode && sources_[i] == selected_node_);
    sets_[i]->Append(model_->series(sources_[i]));
  }
  for (int i = 0; i < 3 && spread_[0]; ++i) {
    spread_[i]->Append(model_->spread(ThroughputModel::Spread(i)));
  }
}

void ThroughputView::UpdateSpread(bool crowded) {
  if (!crowded) {
    for (auto& set : spread_) set.reset();
    return;
  }
  if (spread_[0]) return;
  // Under the grid and the nodes' lines: a layer of its own (created once per plot), so the
  // band can be opaque, which is cheaper to fill than a translucent one.
  for (QCustomPlot* plot : plots_) {
    if (!plot->layer(QStringLiteral("spread"))) {
      plot->addLayer(QStringLiteral("spread"), plot->layer(QStringLiteral("grid")),
                     QCustomPlot::limBelow);
    }
  }
  // A thin solid median over an opaque band without edge lines: a wider or translucent pen
  // costs several times as much to draw, and each line about half a millisecond a frame at a full
  // 5-minute window.
  const QColor text = palette().color(QPalette::WindowText);
  const QColor band = MixColors(palette().color(QPalette::Base), text, 0.15);
  const QString names[3] = {tr("nodes' lowest"), tr("nodes' median"), tr("nodes' range, highest")};
  // The band first, so that the median is drawn over its fill.
  for (int i : {0, 2, 1}) {
    spread_[i] = std::make_unique<ThroughputGraphs>(plots_, ThroughputGraphs::Style::kSpread,
                                                    names[i], i == 1 ? text : QColor());
    for (QCPGraph* graph : {spread_[i]->requests(), spread_[i]->errors(), spread_[i]->p99(),
                            spread_[i]->rejections(), spread_[i]->p50()}) {
      graph->setLayer(QStringLiteral("spread"));
    }
  }
  spread_[2]->FillDownTo(*spread_[0], band);
  // Listed at the next ranking (the errors chart only once a node had errors), which comes at
  // once, as the legend rows left for nodes changed.
  ranked_sets_ = 0;
}

TimeWindow ThroughputView::FollowedRange() const {
  qint64 first = -1, last = -1;
  for (const auto& set : sets_) {
    if (set->DrawnUntilMs() < 0) continue;
    first = first < 0 ? set->FirstMs() : std::min(first, set->FirstMs());
    last = std::max(last, set->DrawnUntilMs());
  }
  return FollowedWindow(first, last, model_->WindowMs(), kMinSpanMs, state_->NowMs(), recording_);
}

void ThroughputView::ApplyRange(bool frame) {
  const QCPRange before = plots_[0]->xAxis->range();
  if (following_) {
    const TimeWindow shown = FollowedRange();
    const QCPRange range(double(shown.from_ms) / 1000.0, double(shown.to_ms) / 1000.0);
    applying_range_ = true;
    for (QCustomPlot* plot : plots_) plot->xAxis->setRange(range);
    applying_range_ = false;
  }
  UpdateTimeFormat();
  UpdateEventMarks();
  UpdateLegends();
  FitValueAxes();
  // How far this frame moved what is drawn: the farther the old range's two ends moved on the
  // screen (the axis is linear, so no time between them moved farther). Under kInTurnShiftPx,
  // one chart in turn.
  const QCPRange after = plots_[0]->xAxis->range();
  const double width = plots_[0]->axisRect()->width();
  double shift_px = qInf();
  if (before.size() > 0 && after.size() > 0) {
    auto x = [width](const QCPRange& range, double key) {
      return (key - range.lower) * width / range.size();
    };
    shift_px = std::max(std::abs(x(after, before.lower) - x(before, before.lower)),
                        std::abs(x(after, before.upper) - x(before, before.upper)));
  }
  const bool in_turn = frame && following_ && shift_px <= kInTurnShiftPx;
  for (int p = 0; p < 3; ++p) {
    if (in_turn && p != chart_turn_) continue;
    plots_[p]->replot(QCustomPlot::rpQueuedReplot);
    ++replot_requests_;
  }
  chart_turn_ = (chart_turn_ + 1) % 3;
  charts_behind_ = in_turn;
  if (legend_behind_ || charts_behind_) {
    settle_->start();  // Again from now: it fires only once frames stop.
  } else {
    settle_->stop();
  }
}

void ThroughputView::UpdateTimeFormat() {
  for (QCustomPlot* plot : plots_) FitTimeFormat(plot);
}

void ThroughputView::FitValueAxes() {
  // Following, only the points appended since the last fit are scanned: a full scan reads
  // every visible point of every graph (1500 graphs at 300 nodes, 3000 points each in a
  // 5-minute window), which grew to most of a frame. What left the window on the left counts
  // until the next full scan, at most kLegendRerankMs later.
  const QCPRange keys = plots_[0]->xAxis->range();
  const bool incremental = following_ && !std::isnan(fitted_to_key_) &&
                           fitted_sets_ == sets_.size() && keys.lower >= fitted_from_key_ &&
                           keys.upper >= fitted_to_key_ &&
                           keys.upper - full_fit_key_ < double(kLegendRerankMs) / 1000.0;
  for (int p = 0; p < 3; ++p) {
    QCPRange r;
    const bool found = ValueRangeIn(
        plots_[p], incremental ? QCPRange(fitted_to_key_, keys.upper) : keys, &r, p == 2);
    ValueFit& fit = value_fits_[p];
    if (!incremental || !fit.found) {
      fit = {found, r.lower, r.upper};
    } else if (found) {
      fit.lower = std::min(fit.lower, r.lower);
      fit.upper = std::max(fit.upper, r.upper);
    }
  }
  if (!incremental) full_fit_key_ = keys.upper;
  fitted_from_key_ = keys.lower;
  fitted_to_key_ = keys.upper;
  fitted_sets_ = sets_.size();

  auto range = [this](int p) { return QCPRange(value_fits_[p].lower, value_fits_[p].upper); };
  QCPRange values = range(0);
  // Rates from zero, with headroom, so a flat line is not drawn as noise.
  const bool traffic = value_fits_[0].found && values.upper > 0;
  plots_[0]->yAxis->setRange(FromZero(traffic ? values.upper * 1.1 : 1.0));
  // No errors: 0..1 on a short chart, rather than a third of the height for 0..0.001.
  values = range(1);
  const bool errors = value_fits_[1].found && values.upper > 0;
  plots_[1]->yAxis->setRange(FromZero(errors ? values.upper * 1.1 : 1.0));
  // Of the others' 2; set only when it changes, as setting it invalidates the layout.
  if (layout_->stretch(layout_->indexOf(plots_[1])) != (errors ? 2 : 1)) {
    layout_->setStretchFactor(plots_[1], errors ? 2 : 1);
  }
  // Latency on a log axis, p50 and p99 both on it between labelled decades.
  values = range(2);
  const bool latency = value_fits_[2].found;
  plots_[2]->yAxis->setRange(latency ? DecadesAround(values) : QCPRange(0.1, 10));
  // Traffic without any latency: the data has none, which is not 0 ms.
  if (traffic && !latency) {
    latency_notice_->setText(!recording_.Empty() ? tr("no latency in this recording")
                                                 : tr("no latency reported"));
    latency_notice_->adjustSize();
    latency_notice_->move(plots_[2]->rect().center() -
                          QPoint(latency_notice_->width() / 2, latency_notice_->height() / 2));
    latency_notice_->show();
  } else {
    latency_notice_->hide();
  }
}

QString ThroughputView::LatencyNotice() const {
  return latency_notice_->isHidden() ? QString() : latency_notice_->text();
}

void ThroughputView::UpdateEventMarks() {
  if (!marks_stale_ && marks_revision_ == model_->EventsRevision() && !marks_->ScaleChanged()) {
    marks_->ShowWithin();
    return;
  }
  marks_stale_ = false;
  marks_revision_ = model_->EventsRevision();
  const bool alone = built_ == Show::kOneNode && built_node_ != ThroughputModel::kCluster;
  const QVector<EventMark> marks =
      ThroughputMarks(*model_, *state_, alone ? built_node_ : ThroughputModel::kCluster, palette());
  marks_->Draw(marks);
}

void ThroughputView::UpdateLegends() {
  const qint64 newest = NewestDrawnMs();
  if (built_ != Show::kEachNode) {
    for (QCustomPlot* plot : plots_) plot->legend->setVisible(true);
    RefreshLegendFigures(!following_, newest);
    return;
  }
  // Overlaid: the busiest nodes, and the selected one, have legend entries. Who is listed is
  // decided again only every kLegendRerankMs (or on a new node, selection, chart height or jump
  // back in time): rows that swap at 10 Hz cannot be read, and each swap re-lays the legend out.
  const int rows = LegendNodes();
  const bool rerank = ranked_sets_ != sets_.size() || ranked_selected_ != selected_node_ ||
                      ranked_rows_ != rows || newest < ranked_at_ms_ ||
                      newest - ranked_at_ms_ >= kLegendRerankMs;
  if (rerank) {
    ranked_rows_ = rows;
    ranked_sets_ = sets_.size();
    ranked_selected_ = selected_node_;
    ranked_at_ms_ = newest;
    std::vector<size_t> order(sets_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto now = [this](size_t i) {
      const ThroughputModel::Series& s = model_->series(sources_[i]);
      return s.empty() || s.back().IsGap() ? 0.0 : s.back().requests_per_s;  // A down node: last.
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return now(a) > now(b); });
    // The errors chart lists, of those, the nodes that had errors, as many as fit; crowded,
    // after the spread's median and highest once any node had errors.
    int error_rows = std::max(LegendRowsFitting(plots_[1]), 1);
    if (spread_[0]) {
      const bool errors = spread_[2]->HadErrors();
      spread_[1]->SetInLegend(true, errors);
      spread_[2]->SetInLegend(true, errors);
      if (errors) error_rows = std::max(error_rows - 2, 0);
    }
    for (size_t rank = 0; rank < order.size(); ++rank) {
      const size_t i = order[rank];
      const bool listed = rank < size_t(rows) || sources_[i] == selected_node_;
      const bool errors = listed && sets_[i]->HadErrors() && error_rows > 0;
      if (errors) --error_rows;
      sets_[i]->SetInLegend(listed, errors);
    }
    // No entry (no listed node had errors): no empty box either.
    for (QCustomPlot* plot : plots_) plot->legend->setVisible(plot->legend->itemCount() > 0);
    // Crowded, a node listed now for the first time draws its lines from this frame on (one no
    // longer listed lets its points go at its next append).
    for (size_t i = 0; i < sets_.size(); ++i) {
      if (sets_[i]->Drawn() && sets_[i]->DrawnUntilMs() < 0) {
        sets_[i]->Append(model_->series(sources_[i]));
      }
    }
  }
  RefreshLegendFigures(rerank || !following_, newest);
}

qint64 ThroughputView::NewestDrawnMs() const {
  qint64 newest = -1;
  for (const auto& set : sets_) newest = std::max(newest, set->DrawnUntilMs());
  return newest;
}

void ThroughputView::RefreshLegendFigures(bool all, qint64 newest) {
  // The entries, in a fixed order: the listed sets, then the spread's (index sets_.size() + k).
  std::vector<size_t> entries;
  for (size_t i = 0; i < sets_.size(); ++i) {
    if (sets_[i]->InLegend()) entries.push_back(i);
  }
  for (size_t k = 0; k < 3 && spread_[0]; ++k) {
    if (spread_[k]->InLegend()) entries.push_back(sets_.size() + k);
  }
  // Each entry's turn comes about every kLegendFiguresMs of newly drawn samples.
  size_t share = entries.size();
  if (!all && legend_figures_at_ms_ >= 0 && newest >= legend_figures_at_ms_) {
    const auto advanced = static_cast<size_t>(newest - legend_figures_at_ms_);
    const size_t period = kLegendFiguresMs;
    share = std::min(entries.size(), (entries.size() * advanced + period - 1) / period);
  }
  legend_figures_at_ms_ = newest;
  const qint64 from = VisibleFromMs(), to = VisibleToMs();
  for (size_t n = 0; n < share; ++n) {
    const size_t entry = entries[(legend_cursor_ + n) % entries.size()];
    const bool spread = entry >= sets_.size();
    const auto k = static_cast<int>(entry - (spread ? sets_.size() : 0));
    const ThroughputModel::Series& series =
        spread ? model_->spread(ThroughputModel::Spread(k)) : model_->series(sources_[entry]);
    const auto [first, last] = ThroughputModel::IndicesIn(series, from, to);
    (spread ? spread_[k] : sets_[entry])->UpdateLegend(series, first, last);
  }
  legend_cursor_ = entries.empty() ? 0 : (legend_cursor_ + share) % entries.size();
  legend_behind_ = share < entries.size();
}

int ThroughputView::LegendNodes() const {
  int rows = std::min(LegendRowsFitting(plots_[0]), LegendRowsFitting(plots_[2]));
  if (!spread_[0]) return std::clamp(rows, 1, kMaxLegendNodes);
  // The spread's median and highest are listed too.
  return std::clamp(rows - 2, 1, kMaxCrowdedLegendNodes);
}

void ThroughputView::SyncRanges(const QCPRange& range) {
  if (syncing_ || applying_range_) return;
  syncing_ = true;  // One plot was dragged or zoomed: the others follow.
  for (QCustomPlot* plot : plots_) {
    if (plot->xAxis->range() != range) {
      plot->xAxis->setRange(range);
      plot->replot(QCustomPlot::rpQueuedReplot);
    }
  }
  UpdateTimeFormat();
  UpdateLegends();  // Their mean and max follow the visible range.
  syncing_ = false;
}

qint64 ThroughputView::VisibleFromMs() const {
  return qint64(std::floor(plots_[0]->xAxis->range().lower * 1000.0));
}

qint64 ThroughputView::VisibleToMs() const {
  return qint64(std::ceil(plots_[0]->xAxis->range().upper * 1000.0));
}

int ThroughputView::DrawnSamples() const {
  int most = 0;
  for (const auto& set : sets_) most = std::max(most, set->DrawnSamples());
  return most;
}

bool ThroughputView::ExportCsv(const QString& path, QString* error) const {
  // What is shown: every overlaid node, or the one node or the cluster (C14: "Each node" wrote
  // only the selected node's samples, unnamed).
  QVector<int> nodes;
  if (built_ == Show::kEachNode) {
    for (int node : sources_) nodes.push_back(node);
  } else {
    nodes.push_back(Node());
  }
  return model_->ExportCsv(path, nodes, VisibleFromMs(), VisibleToMs(), error);
}

bool ThroughputView::ExportPng(const QString& path, QString* error) const {
  // The three charts as the user sees them, stacked, in one image; replotted first, since the
  // last queued replot may not have run yet.
  for (QCustomPlot* plot : plots_) plot->replot(QCustomPlot::rpImmediateRefresh);
  const QPixmap pixmap = const_cast<ThroughputView*>(this)->grab();
  if (pixmap.isNull() || !pixmap.save(path, "PNG")) {
    if (error) *error = tr("cannot write the image to %1").arg(path);
    return false;
  }
  return true;
}

void ThroughputView::ExportPngInteractive() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export charts"), "throughput.png", tr("PNG (*.png)"));
  if (path.isEmpty()) return;
  QString error;
  if (!ExportPng(path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
}

void ThroughputView::ExportCsvInteractive() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export samples"), "throughput.csv", tr("CSV (*.csv)"));
  if (path.isEmpty()) return;
  QString error;
  if (!ExportCsv(path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
}

}  // namespace railyard::ui
