#include "ui/views/throughput_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>
#include <climits>
#include <cmath>

#include "ui/views/plot_style.h"
#include "ui/views/qcustomplot_include.h"

namespace railyard::ui {

namespace {

QCPGraph* AddLine(QCustomPlot* plot, const QString& name, const QColor& color) {
  QCPGraph* graph = plot->addGraph();
  graph->setName(name);
  graph->setPen(QPen(color, 1.5));
  graph->setAdaptiveSampling(true);  // 15 minutes at 10 Hz stays cheap to draw.
  return graph;
}

// Few digits, as a legend has little room: 1234, 12.3, 0.12, 0.
QString Short(double v) {
  if (v == 0) return QStringLiteral("0");
  const double a = std::abs(v);
  return QString::number(v, 'f', a >= 100 ? 0 : a >= 10 ? 1 : 2);
}

// "p99   now 1.20  mean 1.00  max 3.40"; `values` in time order, NaN where nothing was measured
// (latency without traffic), which the mean and max skip and "now" shows as a dash.
QString LegendName(const QString& name, const QVector<double>& values) {
  double sum = 0, max = 0;
  int measured = 0;
  for (double v : values) {
    if (std::isnan(v)) continue;
    sum += v;
    max = measured == 0 ? v : std::max(max, v);
    ++measured;
  }
  if (measured == 0) return name;
  const double now = values.back();
  return QStringLiteral("%1   now %2  mean %3  max %4")
      .arg(name, std::isnan(now) ? QStringLiteral("\u2013") : Short(now),
           Short(sum / double(measured)), Short(max));
}

}  // namespace

ThroughputView::ThroughputView(ClusterState* state, QWidget* parent)
    : QWidget(parent), state_(state), model_(new ThroughputModel(state, this)) {
  title_ = new QLabel(this);
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
  window_ = new QComboBox(this);
  window_->addItem(tr("1 minute"), 1);
  window_->addItem(tr("5 minutes"), 5);
  window_->addItem(tr("15 minutes"), 15);
  window_->setCurrentIndex(1);
  whole_cluster_ = new QCheckBox(tr("Whole cluster"), this);
  whole_cluster_->setToolTip(tr("Show the sums over every node instead of the selected node."));
  connect(whole_cluster_, &QCheckBox::toggled, this, &ThroughputView::SetWholeCluster);
  pause_ = new QPushButton(tr("Pause"), this);
  pause_->setCheckable(true);
  follow_ = new QPushButton(tr("Follow"), this);
  follow_->setToolTip(tr("Scroll with the newest samples again after zooming or panning."));
  png_ = new QPushButton(tr("Export PNG\u2026"), this);
  csv_ = new QPushButton(tr("Export CSV\u2026"), this);
  csv_->setToolTip(tr("The samples in the visible time range."));

  const char* labels[3] = {"requests/s", "errors, rejections /s", "latency (ms)"};
  auto* layout = new QVBoxLayout(this);
  auto* controls = new QHBoxLayout;
  controls->addWidget(title_, 1);
  controls->addWidget(whole_cluster_);
  controls->addWidget(new QLabel(tr("Window:"), this));
  controls->addWidget(window_);
  controls->addWidget(pause_);
  controls->addWidget(follow_);
  controls->addWidget(png_);
  controls->addWidget(csv_);
  layout->addLayout(controls);
  for (int i = 0; i < 3; ++i) {
    QCustomPlot* plot = new QCustomPlot(this);
    plots_[i] = plot;
    StylePlot(plot);
    plot->setMinimumHeight(120);
    QSharedPointer<QCPAxisTickerDateTime> ticker(new QCPAxisTickerDateTime);
    ticker->setDateTimeFormat("hh:mm:ss");
    plot->xAxis->setTicker(ticker);
    plot->yAxis->setLabel(tr(labels[i]));
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->axisRect()->setRangeDrag(Qt::Horizontal);
    plot->axisRect()->setRangeZoom(Qt::Horizontal);
    plot->legend->setVisible(true);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    // A drag or a wheel turn means the user wants to look at a moment: stop scrolling.
    connect(plot, &QCustomPlot::mousePress, this, [this](QMouseEvent*) { following_ = false; });
    connect(plot, &QCustomPlot::mouseWheel, this, [this](QWheelEvent*) { following_ = false; });
    connect(plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            &ThroughputView::SyncRanges);
    layout->addWidget(plot, 1);
  }
  requests_ = AddLine(plots_[0], tr("requests/s"), SeriesColor(0));
  errors_ = AddLine(plots_[1], tr("errors/s"), SeriesColor(3));
  rejections_ = AddLine(plots_[1], tr("rejections/s"), SeriesColor(1));
  p50_ = AddLine(plots_[2], tr("p50"), SeriesColor(2));
  p99_ = AddLine(plots_[2], tr("p99"), SeriesColor(4));
  plots_[2]->legend->setVisible(true);

  connect(window_, &QComboBox::currentIndexChanged, this,
          [this](int index) { SetWindowMinutes(window_->itemData(index).toInt()); });
  connect(pause_, &QPushButton::toggled, this, &ThroughputView::SetPaused);
  connect(follow_, &QPushButton::clicked, this, &ThroughputView::Follow);
  connect(png_, &QPushButton::clicked, this, &ThroughputView::ExportPngInteractive);
  connect(csv_, &QPushButton::clicked, this, &ThroughputView::ExportCsvInteractive);
  connect(model_, &ThroughputModel::SamplesAdded, this, &ThroughputView::OnSamples);
  connect(model_, &ThroughputModel::Cleared, this, &ThroughputView::Rebuild);
  SetNode(ThroughputModel::kCluster);
}

void ThroughputView::SetNode(int node_index) {
  selected_node_ = node_index;
  if (whole_cluster_->isChecked()) return;
  node_ = node_index;
  Rebuild();
}

void ThroughputView::SetWholeCluster(bool whole) {
  if (whole_cluster_->isChecked() != whole) whole_cluster_->setChecked(whole);  // Re-enters.
  const int shown = whole ? ThroughputModel::kCluster : selected_node_;
  if (shown == node_) return;
  node_ = shown;
  Rebuild();
}

bool ThroughputView::WholeCluster() const { return whole_cluster_->isChecked(); }

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

void ThroughputView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (behind_) OnSamples();
}

void ThroughputView::OnSamples() {
  if (paused_ || !isVisible()) {
    behind_ = true;  // Nothing drawn while nobody looks.
    return;
  }
  behind_ = false;
  UpdateTitle();  // A node is named by its address until its first telemetry names it.
  AppendNew();
  ApplyRange();
}

QString ThroughputView::Title() const { return title_->text(); }

void ThroughputView::UpdateTitle() {
  const QString title = node_ == ThroughputModel::kCluster ? tr("Whole cluster")
                        : node_ < state_->NodeCount()      ? state_->Node(node_).name
                                                           : tr("Node %1").arg(node_);
  if (title_->text() != title) title_->setText(title);
}

void ThroughputView::Rebuild() {
  for (QCPGraph* g : {requests_, errors_, rejections_, p50_, p99_}) g->data()->clear();
  drawn_until_ms_ = -1;
  marks_node_ = -2;
  UpdateTitle();
  AppendNew();
  ApplyRange();
}

void ThroughputView::AppendNew() {
  const ThroughputModel::Series& series = model_->series(node_);
  if (series.empty()) return;
  if (series.back().t_ms < drawn_until_ms_) {
    // The series restarted (a replay seek backwards): redraw from scratch.
    for (QCPGraph* g : {requests_, errors_, rejections_, p50_, p99_}) g->data()->clear();
    drawn_until_ms_ = -1;
  }
  // Walk back to the first sample not drawn yet; usually one per frame.
  size_t first = series.size();
  while (first > 0 && series[first - 1].t_ms > drawn_until_ms_) --first;
  for (size_t i = first; i < series.size(); ++i) {
    const ThroughputSample& s = series[i];
    const double key = double(s.t_ms) / 1000.0;
    requests_->addData(key, s.requests_per_s);
    errors_->addData(key, s.errors_per_s);
    rejections_->addData(key, s.rejections_per_s);
    // No requests, no latency: a gap rather than a line through zero (or a stale value).
    const bool served = s.requests_per_s > 0;
    p50_->addData(key, served ? s.p50_us / 1000.0 : qQNaN());
    p99_->addData(key, served ? s.p99_us / 1000.0 : qQNaN());
  }
  drawn_until_ms_ = series.back().t_ms;
  const double oldest = double(drawn_until_ms_ - ThroughputModel::kMaxWindowMs) / 1000.0;
  for (QCPGraph* g : {requests_, errors_, rejections_, p50_, p99_}) g->data()->removeBefore(oldest);
}

void ThroughputView::ApplyRange() {
  if (following_) {
    const qint64 end = std::max<qint64>(drawn_until_ms_, 0);
    const QCPRange range(double(end - model_->WindowMs()) / 1000.0, double(end) / 1000.0);
    applying_range_ = true;
    for (QCustomPlot* plot : plots_) plot->xAxis->setRange(range);
    applying_range_ = false;
  }
  UpdateEventMarks();
  UpdateLegends();
  for (QCustomPlot* plot : plots_) {
    QCPRange values;
    const bool found = VisibleValueRange(plot, &values);
    // From zero, with headroom, so a flat line is not drawn as noise.
    const double top = found ? std::max(values.upper * 1.1, 1e-3) : 1.0;
    plot->yAxis->setRange(0, top);
    plot->replot(QCustomPlot::rpQueuedReplot);
    ++replot_requests_;
  }
}

void ThroughputView::UpdateEventMarks() {
  if (marks_node_ == node_ && marks_revision_ == model_->EventsRevision()) return;
  marks_node_ = node_;
  marks_revision_ = model_->EventsRevision();
  for (QCPAbstractItem* item : marks_) item->parentPlot()->removeItem(item);
  marks_.clear();
  const QColor color = palette().color(QPalette::PlaceholderText);
  for (const ThroughputEvent& e : model_->Events(node_, LLONG_MIN, LLONG_MAX)) {
    const double key = double(e.t_ms) / 1000.0;
    // Over the whole cluster, say whose command it was.
    const QString label = node_ != ThroughputModel::kCluster ? e.command
                          : e.node < state_->NodeCount()
                              ? QStringLiteral("%1 %2").arg(e.command, state_->Node(e.node).name)
                              : e.command;
    for (QCustomPlot* plot : plots_) {
      auto* line = new QCPItemStraightLine(plot);
      line->setPen(QPen(color, 1, Qt::DashLine));
      line->point1->setCoords(key, 0);
      line->point2->setCoords(key, 1);
      auto* text = new QCPItemText(plot);
      text->position->setTypeX(QCPItemPosition::ptPlotCoords);
      text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
      text->position->setCoords(key, 0);
      text->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
      text->setPadding(QMargins(3, 1, 0, 0));
      text->setColor(color);
      text->setText(label);
      marks_ << line << text;
    }
  }
}

void ThroughputView::UpdateLegends() {
  const QVector<ThroughputSample> shown = model_->Samples(node_, VisibleFromMs(), VisibleToMs());
  QVector<double> requests, errors, rejections, p50, p99;
  for (const ThroughputSample& s : shown) {
    requests << s.requests_per_s;
    errors << s.errors_per_s;
    rejections << s.rejections_per_s;
    const bool served = s.requests_per_s > 0;  // As drawn: no latency without traffic.
    p50 << (served ? s.p50_us / 1000.0 : qQNaN());
    p99 << (served ? s.p99_us / 1000.0 : qQNaN());
  }
  requests_->setName(LegendName(tr("requests/s"), requests));
  errors_->setName(LegendName(tr("errors/s"), errors));
  rejections_->setName(LegendName(tr("rejections/s"), rejections));
  p50_->setName(LegendName(tr("p50"), p50));
  p99_->setName(LegendName(tr("p99"), p99));
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
  UpdateLegends();  // Their mean and max follow the visible range.
  syncing_ = false;
}

qint64 ThroughputView::VisibleFromMs() const {
  return qint64(std::floor(plots_[0]->xAxis->range().lower * 1000.0));
}

qint64 ThroughputView::VisibleToMs() const {
  return qint64(std::ceil(plots_[0]->xAxis->range().upper * 1000.0));
}

int ThroughputView::DrawnSamples() const { return requests_->data()->size(); }

bool ThroughputView::ExportCsv(const QString& path, QString* error) const {
  return model_->ExportCsv(path, node_, VisibleFromMs(), VisibleToMs(), error);
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
