// SPDX-License-Identifier: Apache-2.0
#include "ui/views/replication_view.h"

#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/models/replication_lag_model.h"
#include "ui/models/replication_model.h"
#include "ui/models/throughput_model.h"
#include "ui/support/color_mix.h"
#include "ui/views/note_legend_item.h"
#include "ui/views/plot_event_marks.h"
#include "ui/views/plot_style.h"
#include "ui/views/qcustomplot_include.h"
#include "ui/views/throughput_marks.h"
#include "ui/views/time_axis_drag.h"
#include "ui/views/time_range_dialog.h"
#include "ui/views/time_window.h"

namespace railyard::ui {

namespace {

// Draws a replica's catch-up progress as a bar with its percentage; other cells as usual.
class CatchUpDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;

  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override {
    const double progress = index.data(ReplicationModel::kProgressRole).toDouble();
    if (progress < 0) {
      QStyledItemDelegate::paint(painter, option, index);
      return;
    }
    QStyleOptionProgressBar bar;
    bar.rect = option.rect.adjusted(2, 2, -2, -2);
    bar.minimum = 0;
    bar.maximum = 1000;
    bar.progress = int(std::clamp(progress, 0.0, 1.0) * 1000);
    bar.text = index.data().toString();
    bar.textVisible = true;
    bar.state = option.state | QStyle::State_Horizontal;  // Qt 6: the orientation is a flag.
    bar.palette = option.palette;
    QStyle* style = option.widget ? option.widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ProgressBar, &bar, painter, option.widget);
  }
};

}  // namespace

ReplicationView::ReplicationView(ClusterState* state, QWidget* parent)
    : ReplicationView(new ReplicationModel(state), new ReplicationLagModel(state), parent) {
  model_->setParent(this);
  lag_->setParent(this);
}

ReplicationView::ReplicationView(ReplicationModel* model, ReplicationLagModel* lag, QWidget* parent)
    : QWidget(parent),
      state_(model->State()),
      model_(model),
      lag_(lag),
      proxy_(new QSortFilterProxyModel(this)) {
  summary_ = new QLabel(this);
  QFont bold = summary_->font();
  bold.setBold(true);
  summary_->setFont(bold);
  // Wraps rather than setting the tab's least width: unwrapped, with the controls beside it, it
  // made a 1024-pixel window 1,127 pixels wide.
  summary_->setWordWrap(true);
  unit_box_ = new QComboBox(this);
  unit_box_->addItem(tr("documents"), static_cast<int>(LagUnit::kDocs));
  unit_box_->addItem(tr("seconds"), static_cast<int>(LagUnit::kSeconds));
  unit_box_->setToolTip(
      tr("Plot each replica's lag in documents not yet applied, or in seconds "
         "since the updater appended the oldest of them."));
  connect(unit_box_, &QComboBox::currentIndexChanged, this, [this](int index) {
    SetLagUnit(static_cast<LagUnit>(unit_box_->itemData(index).toInt()));
  });
  window_box_ = new QComboBox(this);
  for (int minutes : ThroughputModel::kWindowChoicesMinutes) {
    window_box_->addItem(WindowChoiceText(minutes), minutes);
  }
  window_box_->setCurrentIndex(window_box_->findData(window_minutes_));
  window_box_->setToolTip(
      tr("How much time the lag plot shows; past 15 minutes, each 10 s's highest lag."));
  connect(window_box_, &QComboBox::currentIndexChanged, this,
          [this](int index) { SetWindowMinutes(window_box_->itemData(index).toInt()); });

  proxy_->setSourceModel(model_);
  proxy_->setSortRole(ReplicationModel::kSortRole);
  proxy_->setDynamicSortFilter(true);
  table_ = new QTableView(this);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(ReplicationModel::kName, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setAlternatingRowColors(true);
  table_->verticalHeader()->hide();
  table_->setItemDelegateForColumn(ReplicationModel::kCatchUp, new CatchUpDelegate(table_));
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->horizontalHeader()->setDefaultSectionSize(90);
  table_->setColumnWidth(ReplicationModel::kName, 130);
  table_->setColumnWidth(ReplicationModel::kFollows, 200);
  table_->setColumnWidth(ReplicationModel::kState, 110);
  table_->setColumnWidth(ReplicationModel::kCatchUp, 110);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (!current.isValid()) return;
            const int node = current.data(ReplicationModel::kNodeRole).toInt();
            if (node < 0) return;
            selected_node_ = node;
            UpdateLegend();
            Q_EMIT NodeSelected(node);
          });

  plot_ = new QCustomPlot(this);
  StylePlot(plot_);
  // The faint graphs (left out of the legend) below the listed ones: opaque, they would cover
  // a listed line wherever they cross it after it in drawing order.
  plot_->addLayer(QStringLiteral("faint"), plot_->layer(QStringLiteral("main")),
                  QCustomPlot::limBelow);
  plot_->setMinimumHeight(140);
  QSharedPointer<QCPAxisTickerDateTime> ticker(new QCPAxisTickerDateTime);
  ticker->setDateTimeFormat("hh:mm:ss");
  plot_->xAxis->setTicker(ticker);
  plot_->legend->setVisible(true);
  plot_->setAutoAddPlottableToLegend(false);  // UpdateLegend lists them.
  plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
  // As on Throughput: drag to zoom, Shift+drag to pan, double-click to follow again.
  auto* drag = new TimeAxisDrag(plot_);
  connect(drag, &TimeAxisDrag::Taken, this, [this] { following_ = false; });
  connect(drag, &TimeAxisDrag::FollowAsked, this, &ReplicationView::Follow);
  connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this] {
    if (following_) return;  // ApplyRange fits the values itself.
    FitTimeFormat(plot_);
    FitValues();
    UpdateMarks();
    plot_->replot(QCustomPlot::rpQueuedReplot);
  });
  marks_ = std::make_unique<PlotEventMarks>(QVector<QCustomPlot*>{plot_});
  auto* range = new QPushButton(tr("Range..."), this);
  range->setToolTip(tr("Show a custom time range (a drag across the plot zooms too)"));
  connect(range, &QPushButton::clicked, this, &ReplicationView::AskRange);
  auto* follow = new QPushButton(tr("Follow"), this);
  follow->setToolTip(tr("Follow the newest samples again (or double-click the plot)"));
  connect(follow, &QPushButton::clicked, this, &ReplicationView::Follow);

  auto* controls = new QHBoxLayout;
  controls->addWidget(summary_, 1);
  controls->addWidget(new QLabel(tr("Plot lag in:"), this));
  controls->addWidget(unit_box_);
  controls->addWidget(new QLabel(tr("Window:"), this));
  controls->addWidget(window_box_);
  controls->addWidget(range);
  controls->addWidget(follow);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(table_);
  splitter->addWidget(plot_);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 2);
  splitter->setSizes({200, 400});
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addWidget(splitter, 1);

  connect(lag_, &ReplicationLagModel::SamplesAdded, this, &ReplicationView::OnSamples);
  connect(lag_, &ReplicationLagModel::Cleared, this, &ReplicationView::Rebuild);
  connect(model_, &QAbstractItemModel::modelReset, this, &ReplicationView::UpdateSummary);
  connect(model_, &QAbstractItemModel::dataChanged, this, &ReplicationView::UpdateSummary);
  Rebuild();
  UpdateSummary();
}

ReplicationView::~ReplicationView() = default;

void ReplicationView::SetEvents(const ThroughputModel* events) {
  events_ = events;
  marks_stale_ = true;
  UpdateMarks();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ReplicationView::UpdateMarks() {
  if (!events_) {
    marks_->Clear();
    return;
  }
  if (!marks_stale_ && marks_revision_ == events_->EventsRevision() && !marks_->ScaleChanged()) {
    marks_->ShowWithin();
    return;
  }
  marks_stale_ = false;
  marks_revision_ = events_->EventsRevision();
  const QVector<int> replicas = lag_->Replicas();
  marks_->Draw(ThroughputMarks(
      *events_, *state_, ThroughputModel::kCluster, palette(), [this, &replicas](int node) {
        if (replicas.contains(node)) return true;
        if (node >= state_->NodeCount()) return false;
        const NodeView& n = state_->Node(node);
        return n.telemetry && n.telemetry->replication().role() != admin::DOCSTORE_ROLE_UNSPECIFIED;
      }));
}

void ReplicationView::SetLagUnit(LagUnit unit) {
  const int box_index = unit_box_->findData(static_cast<int>(unit));
  if (unit_box_->currentIndex() != box_index) unit_box_->setCurrentIndex(box_index);  // Re-enters.
  if (unit == unit_) return;
  unit_ = unit;
  Rebuild();
}

bool ReplicationView::SetWindowMinutes(int minutes) {
  if (window_box_->findData(minutes) < 0) return false;
  const int box_index = window_box_->findData(minutes);
  if (window_box_->currentIndex() != box_index)
    window_box_->setCurrentIndex(box_index);  // Re-enters.
  if (minutes == window_minutes_ && following_) return true;
  window_minutes_ = minutes;
  state_->RequestHistoryMs(WindowMs());  // A replay's seek rebuilds as much.
  following_ = true;
  held_reach_ms_ = 0;
  if (!UpdateCoarse()) ApplyRange();
  return true;
}

bool ReplicationView::UpdateCoarse() {
  // Held on a range, the range alone decides: a recent stretch held under a 24-hour window is
  // still drawn in full (a 7 s silence was lost in a 10 s bucket).
  const qint64 reach = following_ ? WindowMs() : held_reach_ms_;
  const bool coarse = reach > ReplicationLagModel::kMaxWindowMs;
  if (coarse == coarse_) return false;
  coarse_ = coarse;
  Rebuild();  // The other series.
  return true;
}

const ReplicationLagModel::Series& ReplicationView::Drawn(int node) const {
  return coarse_ ? lag_->coarse(node) : lag_->series(node);
}

void ReplicationView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (behind_) OnSamples();
}

void ReplicationView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() != QEvent::PaletteChange) return;
  ranked_at_ms_ = -1;
  UpdateLegend();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

QString ReplicationView::Summary() const { return summary_->text(); }

void ReplicationView::UpdateSummary() {
  int updaters = 0, replicas = 0, tailing = 0, catching_up = 0, troubled = 0, unknown = 0;
  for (int row = 0; row < model_->rowCount(); ++row) {
    const NodeView& node = state_->Node(model_->NodeOfRow(row));
    const admin::Replication& r = node.telemetry->replication();
    if (r.role() == admin::DOCSTORE_UPDATER) {
      ++updaters;
      continue;
    }
    ++replicas;
    if (!IsLive(node.health)) {
      ++unknown;  // Its last word is not its state now (docs/figures.md), as its row says.
    } else if (r.state() == admin::REPLICA_TAILING) {
      ++tailing;
    } else if (r.state() == admin::REPLICA_CATCHING_UP) {
      ++catching_up;
    } else {
      ++troubled;
    }
  }
  QString text =
      updaters + replicas == 0
          ? tr("No node reports replication")
          : tr("%1 updater(s), %2 replica(s): %3 tailing, %4 catching up, %5 disconnected or "
               "stopped")
                .arg(updaters)
                .arg(replicas)
                .arg(tailing)
                .arg(catching_up)
                .arg(troubled);
  if (unknown > 0) text += tr(", %1 unknown (node not answering)").arg(unknown);
  if (summary_->text() != text) summary_->setText(text);
}

void ReplicationView::OnSamples() {
  if (!isVisible()) {
    behind_ = true;  // Nothing drawn while nobody looks.
    return;
  }
  behind_ = false;
  AppendNew();
  ApplyRange();
}

void ReplicationView::Rebuild() {
  plot_->clearGraphs();
  graphs_.clear();
  series_colors_.clear();
  drawn_until_ms_.clear();
  ranked_at_ms_ = -1;
  plot_->yAxis->setLabel(unit_ == LagUnit::kDocs ? tr("lag (documents)") : tr("lag (s)"));
  AppendNew();
  ApplyRange();
}

void ReplicationView::AppendNew() {
  const QVector<int> replicas = lag_->Replicas();
  for (int i = 0; i < replicas.size(); ++i) {
    const int node = replicas[i];
    const ReplicationLagModel::Series& series = Drawn(node);
    QCPGraph* graph = graphs_.value(node);
    if (!graph) {
      graph = plot_->addGraph();
      graph->setPen(QPen(SeriesColor(i), 1.5));
      graph->setAdaptiveSampling(true);
      graphs_.insert(node, graph);
      series_colors_.insert(node, SeriesColor(i));
      drawn_until_ms_.insert(node, -1);
    }
    const QString name = node < state_->NodeCount() ? state_->Node(node).name : QString();
    if (graph->name() != name) graph->setName(name);
    if (series.empty()) continue;
    qint64 drawn = drawn_until_ms_.value(node, -1);
    if (series.back().t_ms < drawn) {
      graph->data()->clear();  // The series restarted (a replay seek backwards).
      drawn = -1;
    } else if (coarse_ && drawn >= 0) {
      // The open bucket grows in place: drawn again.
      graph->data()->remove(double(drawn) / 1000.0);
      --drawn;
    }
    // Walk back to the first sample not drawn yet; usually one per frame.
    size_t first = series.size();
    while (first > 0 && series[first - 1].t_ms > drawn) --first;
    for (size_t k = first; k < series.size(); ++k) {
      const LagSample& s = series[k];
      graph->addData(double(s.t_ms) / 1000.0, unit_ == LagUnit::kDocs ? s.lag_docs : s.lag_seconds);
    }
    drawn_until_ms_.insert(node, series.back().t_ms);
    const qint64 kept =
        coarse_ ? ReplicationLagModel::kMaxCoarseWindowMs : ReplicationLagModel::kMaxWindowMs;
    graph->data()->removeBefore(double(series.back().t_ms - kept) / 1000.0);
  }
  UpdateLegend();
}

void ReplicationView::UpdateLegend() {
  const QVector<int> replicas = lag_->Replicas();
  const int rows = std::clamp(LegendRowsFitting(plot_), 1, kMaxLegendReplicas);
  const qint64 newest = lag_->LatestMs();
  const bool rerank = ranked_at_ms_ < 0 || ranked_replicas_ != replicas.size() ||
                      ranked_rows_ != rows || ranked_selected_ != selected_node_ ||
                      newest < ranked_at_ms_ || newest - ranked_at_ms_ >= kLegendRerankMs;
  if (!rerank) return;
  ranked_at_ms_ = std::max<qint64>(newest, 0);
  ranked_replicas_ = int(replicas.size());
  ranked_rows_ = rows;
  ranked_selected_ = selected_node_;
  std::vector<int> order(replicas.begin(), replicas.end());
  const bool crowded = int(order.size()) > rows;
  if (crowded) {
    // Highest lag first; an unknown one (NaN) above all, a replica with no sample yet last.
    auto rank = [this](int node) {
      const ReplicationLagModel::Series& series = Drawn(node);
      if (series.empty()) return -std::numeric_limits<double>::infinity();
      const double lag =
          unit_ == LagUnit::kDocs ? series.back().lag_docs : series.back().lag_seconds;
      return std::isnan(lag) ? std::numeric_limits<double>::infinity() : lag;
    };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return rank(a) > rank(b); });
  }
  QCPLegend* legend = plot_->legend;
  legend->clearItems();
  int listed = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    QCPGraph* graph = graphs_.value(order[i]);
    if (!graph) continue;
    const bool in = !crowded || listed < rows || order[i] == selected_node_;
    QPen pen = graph->pen();
    // Left out of the legend: fainter, mixed with the background rather than translucent (a
    // translucent line over 96 rows tall is a fill Qt's raster engine waits on its threads for).
    const QColor color = series_colors_.value(order[i], pen.color());
    pen.setColor(in ? color : MixColors(palette().color(QPalette::Base), color, 90.0 / 255));
    graph->setLayer(in ? QStringLiteral("main") : QStringLiteral("faint"));
    pen.setWidthF(in ? 1.5 : 1.0);
    graph->setPen(pen);
    if (!in) continue;
    graph->addToLegend();
    ++listed;
  }
  if (listed < int(order.size())) {
    auto* note = new NoteLegendItem(legend);
    note->SetText(tr("%n more, lower lag (drawn faint)", "", int(order.size()) - listed));
    legend->addItem(note);
  }
  legend->setVisible(legend->itemCount() > 0);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

QStringList ReplicationView::LegendTexts() const {
  QStringList texts;
  for (int i = 0; i < plot_->legend->itemCount(); ++i) {
    QCPAbstractLegendItem* item = plot_->legend->item(i);
    if (auto* plottable = qobject_cast<QCPPlottableLegendItem*>(item)) {
      texts << plottable->plottable()->name();
    } else if (auto* note = qobject_cast<NoteLegendItem*>(item)) {
      texts << note->Text();
    }
  }
  return texts;
}

void ReplicationView::ApplyRange() {
  // The chosen window, or less while there is less, so a fresh start is not a sliver.
  const qint64 end = std::max<qint64>(lag_->LatestMs(), 0);
  qint64 oldest = end;
  for (int node : lag_->Replicas()) {
    const ReplicationLagModel::Series& series = Drawn(node);
    if (!series.empty()) oldest = std::min(oldest, series.front().t_ms);
  }
  const qint64 begin = std::max(end - WindowMs(), std::min(oldest, end - kMinWindowMs));
  if (following_) plot_->xAxis->setRange(double(begin) / 1000.0, double(end) / 1000.0);
  FitTimeFormat(plot_);
  FitValues();
  UpdateMarks();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ReplicationView::Follow() {
  following_ = true;
  held_reach_ms_ = 0;
  if (!UpdateCoarse()) ApplyRange();
}

void ReplicationView::ShowRange(qint64 from_ms, qint64 to_ms) {
  const TimeWindow range = OrderedRange(from_ms, to_ms, qint64(TimeAxisDrag::kMinRangeS * 1000));
  following_ = false;
  // A range reaching back past the full series draws the 10 s buckets, whatever the window.
  held_reach_ms_ = std::max<qint64>(lag_->LatestMs(), range.to_ms) - range.from_ms;
  UpdateCoarse();
  plot_->xAxis->setRange(double(range.from_ms) / 1000.0, double(range.to_ms) / 1000.0);
  FitValues();
  UpdateMarks();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

TimeWindow ReplicationView::ShownRange() const {
  const QCPRange shown = plot_->xAxis->range();
  return {qint64(std::llround(shown.lower * 1000)), qint64(std::llround(shown.upper * 1000))};
}

TimeRangeDialog* ReplicationView::AskRange() {
  return TimeRangeDialog::Ask(ShownRange(), this, [this](const TimeWindow& range) {
    ShowRange(range.from_ms, range.to_ms);
  });
}

std::optional<TimeWindow> ReplicationView::FixedRange() const {
  if (following_) return std::nullopt;
  return ShownRange();
}

void ReplicationView::FitValues() {
  QCPRange values;
  const bool found = VisibleValueRange(plot_, &values);
  // From zero, with headroom, so a replica at lag 0 is a line just above the axis rather than in
  // the middle (or under the axis line, where it read as no data).
  plot_->yAxis->setRange(FromZero(found ? std::max(values.upper * 1.1, 1.0) : 1.0));
}

}  // namespace railyard::ui
