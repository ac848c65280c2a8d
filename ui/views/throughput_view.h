// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QVector>
#include <QWidget>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "ui/models/cluster_state.h"
#include "ui/models/throughput_model.h"
#include "ui/views/time_window.h"

class QComboBox;
class QCustomPlot;
class QCPRange;
class QLabel;
class QPushButton;
class QTimer;
class QVBoxLayout;

namespace railyard::ui {

class TimeRangeDialog;

class PlotEventMarks;
class PlotCrosshair;
class ThroughputGraphs;

// Throughput over time, as three stacked charts on one time axis: requests/s; errors/s and
// rejections/s; p50 and p99 latency in ms on a logarithmic axis (p50 and p99 often differ by a
// decade or more, and a linear axis flattens p50 onto zero). It shows either each node overlaid,
// one colour per node (the default while more than one node is watched; the node selected
// elsewhere drawn thicker), or the selected node alone, or the whole cluster.
//
// Each legend entry reads its series' current value and its mean and max over the visible range
// (overlaid, for the kMaxLegendNodes busiest nodes, chosen again every kLegendRerankMs, and the
// selected one; crowded, the spread's median and highest too). Hovering any chart draws
// a crosshair on all three with a readout of that time and every shown series' value there.
// Latency has a gap (not a line through zero) where a node served nothing, and the chart says so
// when the data has no latency at all. Every chart marks the commands the shown nodes ran
// (drain, undrain, compact, flush), their restarts and their lame-duck changes.
//
// Following, the window ends at the newest sample and reaches back to the first one until it is
// the chosen window wide (1, 5 or 15 minutes, 1, 6 or 24 hours); without data it ends now (live)
// or lies in the recording's span (replay, see SetRecordingSpan). Pause freezes the picture
// (samples keep being recorded); dragging across a chart zooms to that range, Shift+drag pans,
// the wheel zooms, and "Range..." asks for a custom start and end: each stops following until
// "Follow" is pressed or a chart double-clicked. Export writes the charts as PNG
// or the visible samples as CSV.
//
// It stays cheap at 10 Hz with 100 nodes: each frame appends only new samples and asks for a
// queued replot; a hidden or paused view does nothing but note that it is behind.
//
// Thread safety: GUI thread only.
class ThroughputView : public QWidget {
  Q_OBJECT
 public:
  enum class Show { kEachNode, kOneNode, kWholeCluster };
  static constexpr int kMaxLegendNodes = 8;
  // Crowded, fewer: each listed node draws its own lines over the spread, and at a full 5-minute
  // window each line costs about half a millisecond a frame to draw.
  static constexpr int kMaxCrowdedLegendNodes = 4;
  // Overlaid past this many nodes, only the selected node and those in the legends draw lines,
  // over the band of every node's spread (lowest to highest, and the median).
  static constexpr int kCrowdedNodes = 20;
  // How long the overlaid legend keeps the nodes it lists (cluster time).
  static constexpr qint64 kLegendRerankMs = 5 * 1000;
  // Following, about how often (cluster time) each legend entry's now / mean / max figures are
  // refreshed. Figures that change at 10 Hz cannot be read, and laying out every entry's text
  // again each frame was a fifth of a frame's paint at 300 nodes; each frame refreshes a share
  // of the entries in turn. They are all exact kLegendSettleMs (wall time) after frames stop, and
  // at once after a zoom, a pan, a seek or a new ranking.
  static constexpr qint64 kLegendFiguresMs = 500;
  static constexpr int kLegendSettleMs = 250;
  // Following a window so wide that a frame moves what is drawn by at most this many pixels, a
  // frame replots one of the three charts, in turn, instead of all three: each is then redrawn
  // about three times a second (at 10 Hz) and at most 3 px behind the others, and a frame costs
  // a third of the charts' drawing (at 300 nodes and a full 5-minute window, half the frame).
  // They are all drawn kLegendSettleMs after frames stop, and at once after anything but a frame
  // (zoom, pan, seek, selection, resize, a new window).
  static constexpr double kInTurnShiftPx = 1.0;
  // The narrowest window while following, so the first samples are not squeezed to a point.
  static constexpr qint64 kMinSpanMs = 10 * 1000;

  // Draws `model`, which the console's session owns and which must outlive the view.
  explicit ThroughputView(ThroughputModel* model, QWidget* parent = nullptr);
  // With a model of its own on `state` (tests, a view outside the console).
  explicit ThroughputView(ClusterState* state, QWidget* parent = nullptr);
  ~ThroughputView() override;

  // The node selected elsewhere (ThroughputModel::kCluster for none): shown alone in kOneNode,
  // drawn thicker overlaid.
  void SetNode(int node_index);
  // Until one is chosen, the view shows kEachNode while more than one node is watched, else
  // kOneNode.
  void SetShow(Show show);
  Show Shown() const;
  // Whole cluster on; off returns to what was shown before.
  void SetWholeCluster(bool whole);
  bool WholeCluster() const { return Shown() == Show::kWholeCluster; }
  // The node shown alone, kCluster for the whole cluster; overlaid, the selected node.
  int Node() const;
  bool SetWindowMinutes(int minutes);
  int WindowMinutes() const { return model_->WindowMinutes(); }
  void SetPaused(bool paused);
  bool Paused() const { return paused_; }
  // Follow the newest samples again after a zoom or pan.
  void Follow();
  // Stops following and centres the time axes on `t_ms` (cluster clock), keeping the visible
  // width (at least a minute): an incident's moment.
  void ShowAround(qint64 t_ms);
  // Stops following and shows [from_ms, to_ms] (cluster clock; at least TimeAxisDrag's least
  // range): a custom range, as "Range..." asks for one.
  void ShowRange(qint64 from_ms, qint64 to_ms);
  // Opens the custom range dialog (window-modal; OK calls ShowRange) and returns it.
  TimeRangeDialog* AskRange();
  bool Following() const { return following_; }
  // What is shown when not following (a zoom, a pan, a custom range); nullopt while following.
  std::optional<TimeWindow> FixedRange() const;
  // A replay's recording span (cluster ms): where an empty chart is anchored, and the "no
  // latency" notice says "in this recording". (0, 0): live.
  void SetRecordingSpan(qint64 start_ms, qint64 end_ms);

  // The visible time range (cluster clock, ms).
  qint64 VisibleFromMs() const;
  qint64 VisibleToMs() const;
  bool ExportPng(const QString& path, QString* error) const;
  bool ExportCsv(const QString& path, QString* error) const;

  ThroughputModel* Model() const { return model_; }
  // Overlaid, how many of the busiest nodes the legends list: kMaxLegendNodes (crowded,
  // kMaxCrowdedLegendNodes), or fewer when the requests and latency charts are too short to show
  // that many rows whole (the selected node is listed besides). The errors chart lists those of
  // them that had errors, as many as fit.
  int LegendNodes() const;
  QCustomPlot* RatesPlot() const { return plots_[0]; }
  QString Title() const;
  QCustomPlot* ErrorsPlot() const { return plots_[1]; }
  QCustomPlot* LatencyPlot() const { return plots_[2]; }
  PlotCrosshair* Crosshair() const { return crosshair_; }
  // The notice over the latency chart when the shown data has traffic but no latency; empty
  // when hidden.
  QString LatencyNotice() const;
  // Points drawn so far in the requests/s graph (overlaid: the longest node's; for tests).
  int DrawnSamples() const;
  // Overlaid over more than kCrowdedNodes nodes, the spread's lines (for tests); null otherwise.
  const ThroughputGraphs* SpreadGraphs(ThroughputModel::Spread which) const {
    return spread_[int(which)].get();
  }
  // Replots requested since construction (queued replots coalesce; for tests).
  int ReplotRequests() const { return replot_requests_; }

 protected:
  void showEvent(QShowEvent* event) override;
  // A palette change redraws the spread in the new palette's colours.
  void changeEvent(QEvent* event) override;

 private:
  void OnSamples();
  void Rebuild();
  void UpdateTitle();
  // Adds the samples not drawn yet (overlaid, and the sets of nodes seen for the first time).
  void AppendNew();
  // Builds or drops the spread's sets as the overlay becomes crowded or not.
  void UpdateSpread(bool crowded);
  // `frame`: called for new samples while following, when the charts may redraw in turn.
  void ApplyRange(bool frame = false);
  // The time range to show while following.
  TimeWindow FollowedRange() const;
  void FitValueAxes();
  // The time axis's labels for the visible width (seconds, minutes, dates).
  void UpdateTimeFormat();
  // Redraws the event marks if the model's events or what is shown changed.
  void UpdateEventMarks();
  // Each listed graph's legend name with its current, mean and max over the visible range; while
  // following, only the entries whose turn it is (kLegendFiguresMs).
  void UpdateLegends();
  // Refreshes the figures of every listed entry if `all`, else of the share whose turn it is;
  // `newest` is NewestDrawnMs(), which measures the turns.
  void RefreshLegendFigures(bool all, qint64 newest);
  // The newest sample any graph set has drawn, -1 for none.
  qint64 NewestDrawnMs() const;
  void SyncRanges(const QCPRange& range);
  void ExportPngInteractive();
  void ExportCsvInteractive();

  ClusterState* state_;
  ThroughputModel* model_;
  int selected_node_ = ThroughputModel::kCluster;
  std::optional<Show> chosen_;          // Unset: by the number of nodes.
  std::optional<Show> before_cluster_;  // What SetWholeCluster(false) returns to.
  Show built_ = Show::kOneNode;         // What the graph sets were built for.
  int built_node_ = ThroughputModel::kCluster;
  RecordingSpan recording_;  // Empty live.
  QLabel* title_;
  QComboBox* show_;
  QComboBox* window_;
  QPushButton* range_;
  QPushButton* pause_;
  QPushButton* follow_;
  QPushButton* png_;
  QPushButton* csv_;
  QVBoxLayout* layout_;
  QCustomPlot* plots_[3];
  QLabel* latency_notice_;
  // Alone: one set (sources_[0] is its node or kCluster); overlaid: one per node seen.
  std::vector<std::unique_ptr<ThroughputGraphs>> sets_;
  std::vector<int> sources_;
  // Crowded overlay: the spread's lowest, median and highest (ThroughputModel::Spread order).
  std::unique_ptr<ThroughputGraphs> spread_[3];
  std::unique_ptr<PlotEventMarks> marks_;
  PlotCrosshair* crosshair_;
  quint64 marks_revision_ = 0;
  bool marks_stale_ = true;
  bool paused_ = false;
  bool following_ = true;
  bool behind_ = false;  // New samples arrived while hidden or paused.
  bool syncing_ = false;
  bool applying_range_ = false;
  int replot_requests_ = 0;
  // The overlaid legend's last ranking: over how many sets, for which selection, at what time.
  size_t ranked_sets_ = 0;
  int ranked_rows_ = 0;
  int ranked_selected_ = ThroughputModel::kCluster;
  qint64 ranked_at_ms_ = -1;
  // The legend figures' turns: the next entry to refresh, and the newest sample at the last call.
  size_t legend_cursor_ = 0;
  qint64 legend_figures_at_ms_ = -1;
  bool legend_behind_ = false;  // Some entries' figures wait for their turn.
  // Charts not replotted since the last frame's range (kInTurnShiftPx); the next in turn.
  bool charts_behind_ = false;
  int chart_turn_ = 0;
  QTimer* settle_;  // Once frames stop: every legend entry's figures and every chart.
  // FitValueAxes' value range of each plot between full scans, and what it covered.
  struct ValueFit {  // A QCPRange's ends (its header is not included here).
    bool found = false;
    double lower = 0;
    double upper = 0;
  };
  ValueFit value_fits_[3];
  double fitted_from_key_ = 0;
  double fitted_to_key_ = std::numeric_limits<double>::quiet_NaN();  // NaN: scan all next.
  double full_fit_key_ = 0;
  size_t fitted_sets_ = 0;
};

}  // namespace railyard::ui
