// SPDX-License-Identifier: Apache-2.0
#include "ui/compare/compare_window.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/compare/compare_csv.h"
#include "ui/compare/compare_plots.h"
#include "ui/compare/recording_loader.h"

namespace railyard::ui {

namespace {

QColor SideColor(int side) { return ComparePlots::SideColor(side); }

// "–" for NaN, else few digits: 12345, 12.3, 0.123.
QString Number(double v, int decimals = -1) {
  if (std::isnan(v)) return QStringLiteral("\u2013");
  if (decimals < 0) decimals = std::abs(v) >= 100 ? 0 : std::abs(v) >= 10 ? 1 : 3;
  return QString::number(v, 'f', decimals);
}

QString Percent(double share) {
  return std::isnan(share) ? QStringLiteral("\u2013")
                           : QString::number(100.0 * share, 'f', 2) + QLatin1Char('%');
}

// "+1:05" from a recording's start.
QString Offset(qint64 ms) {
  const qint64 s = ms / 1000;
  return QStringLiteral("+%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

}  // namespace

CompareWindow::CompareWindow(QWidget* parent) : QWidget(parent, Qt::Window) {
  setWindowTitle(tr("Compare recordings"));
  auto* layout = new QVBoxLayout(this);

  auto* files = new QGridLayout;
  for (int side = 0; side < 2; ++side) {
    auto* label =
        new QLabel(tr("Recording %1:").arg(QLatin1String(ComparePlots::kSideName[side])), this);
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, SideColor(side));
    label->setPalette(palette);
    path_[side] = new QLineEdit(this);
    path_[side]->setPlaceholderText(tr("a recording file (railyardctl record or sim --record)"));
    browse_[side] = new QPushButton(tr("Browse\u2026"), this);
    connect(browse_[side], &QPushButton::clicked, this, [this, side] { Browse(side); });
    progress_[side] = new QProgressBar(this);
    progress_[side]->setRange(0, 1000);
    progress_[side]->setMaximumWidth(160);
    progress_[side]->hide();
    files->addWidget(label, side, 0);
    files->addWidget(path_[side], side, 1);
    files->addWidget(browse_[side], side, 2);
    files->addWidget(progress_[side], side, 3);
  }
  compare_ = new QPushButton(tr("Compare"), this);
  compare_->setDefault(true);
  connect(compare_, &QPushButton::clicked, this, &CompareWindow::StartLoad);
  files->addWidget(compare_, 0, 4, 2, 1);
  files->setColumnStretch(1, 1);
  layout->addLayout(files);

  errors_ = new QLabel(this);
  errors_->setWordWrap(true);
  errors_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QPalette error_palette = errors_->palette();
  error_palette.setColor(QPalette::WindowText, QColor(0xc0, 0x20, 0x20));
  errors_->setPalette(error_palette);
  errors_->hide();
  layout->addWidget(errors_);

  auto* controls = new QHBoxLayout;
  legend_ = new QLabel(this);
  legend_->setTextFormat(Qt::RichText);
  controls->addWidget(legend_, 1);
  controls->addWidget(new QLabel(tr("Show:"), this));
  node_picker_ = new QComboBox(this);
  node_picker_->setMinimumContentsLength(14);
  node_picker_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  connect(node_picker_, &QComboBox::activated, this,
          [this](int index) { SetNode(node_picker_->itemData(index).toString()); });
  controls->addWidget(node_picker_);
  png_ = new QPushButton(tr("Export PNG\u2026"), this);
  csv_ = new QPushButton(tr("Export CSV\u2026"), this);
  connect(png_, &QPushButton::clicked, this, &CompareWindow::ExportPngInteractive);
  connect(csv_, &QPushButton::clicked, this, &CompareWindow::ExportCsvInteractive);
  controls->addWidget(png_);
  controls->addWidget(csv_);
  layout->addLayout(controls);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  plots_ = new ComparePlots(splitter);

  auto* tables = new QSplitter(Qt::Horizontal, splitter);
  summary_ = new QTableWidget(0, 3, tables);
  summary_->setHorizontalHeaderLabels({tr("A"), tr("B"), tr("B/A")});
  summary_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  summary_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  summary_->setToolTip(
      tr("Over each recording's whole span, for what the plots show. Total requests, p50 and "
         "p99 come from the recording's latency histograms where it has them (the simulator's: "
         "the figures railyardctl sim prints); otherwise, marked \u2248, the total integrates the "
         "per-second rates and the percentiles are request-weighted percentiles of the "
         "per-second figures (percentiles do not add, so they are approximations). The failed "
         "share integrates the rates."));
  events_ = new QTableWidget(0, 5, tables);
  events_->setHorizontalHeaderLabels({tr(""), tr("time"), tr("node"), tr("kind"), tr("detail")});
  events_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  events_->verticalHeader()->hide();
  events_->horizontalHeader()->setStretchLastSection(true);
  summary_->setMinimumWidth(420);
  summary_->verticalHeader()->setDefaultSectionSize(summary_->fontMetrics().height() + 6);
  tables->setStretchFactor(1, 1);
  tables->setSizes({460, 540});
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({560, 230});
  layout->addWidget(splitter, 1);

  for (int side = 0; side < 2; ++side) {
    loaders_[side] = new RecordingLoader(this);
    connect(loaders_[side], &RecordingLoader::Progress, this,
            [this, side](double fraction) { progress_[side]->setValue(int(fraction * 1000)); });
    connect(loaders_[side], &RecordingLoader::Loaded, this,
            [this, side](std::shared_ptr<const RecordingSeries> s) { OnLoaded(side, s); });
    connect(loaders_[side], &RecordingLoader::Failed, this,
            [this, side](const QString& error) { OnFailed(side, error); });
  }
  RebuildNodePicker();
  Redraw();
  resize(1000, 760);
}

CompareWindow::~CompareWindow() = default;

void CompareWindow::Open(const QString& a, const QString& b) {
  path_[kA]->setText(a);
  path_[kB]->setText(b);
  StartLoad();
}

bool CompareWindow::Loading() const { return loaders_[kA]->Busy() || loaders_[kB]->Busy(); }

QString CompareWindow::ErrorText() const {
  QStringList lines;
  for (int side = 0; side < 2; ++side) {
    if (!error_[side].isEmpty()) {
      lines
          << tr("Recording %1: %2").arg(QLatin1String(ComparePlots::kSideName[side]), error_[side]);
    }
  }
  return lines.join(QLatin1Char('\n'));
}

void CompareWindow::StartLoad() {
  for (int side = 0; side < 2; ++side) {
    series_[side].reset();
    error_[side].clear();
    const QString path = path_[side]->text().trimmed();
    if (path.isEmpty()) {
      error_[side] = tr("no file chosen");
      continue;
    }
    progress_[side]->setValue(0);
    progress_[side]->show();
    loaders_[side]->Load(path);
  }
  compare_->setEnabled(!Loading());
  UpdateErrors();
  RebuildNodePicker();
  Redraw();
  if (!Loading()) Q_EMIT LoadFinished();
}

void CompareWindow::OnLoaded(int side, std::shared_ptr<const RecordingSeries> series) {
  series_[side] = std::move(series);
  OnSideDone();
}

void CompareWindow::OnFailed(int side, const QString& error) {
  error_[side] = error;
  OnSideDone();
}

void CompareWindow::OnSideDone() {
  for (int side = 0; side < 2; ++side) {
    if (!loaders_[side]->Busy()) progress_[side]->hide();
  }
  UpdateErrors();
  RebuildNodePicker();
  Redraw();
  if (!Loading()) {
    compare_->setEnabled(true);
    Q_EMIT LoadFinished();
  }
}

void CompareWindow::UpdateErrors() {
  const QString text = ErrorText();
  errors_->setText(text);
  errors_->setVisible(!text.isEmpty());
}

QStringList CompareWindow::NodeChoices() const {
  QStringList nodes;
  for (const auto& s : series_) {
    if (!s) continue;
    for (const QString& n : s->nodes) {
      if (!nodes.contains(n)) nodes << n;
    }
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

void CompareWindow::RebuildNodePicker() {
  const QStringList nodes = NodeChoices();
  if (!node_.isEmpty() && !nodes.contains(node_)) node_.clear();
  const QSignalBlocker block(node_picker_);
  node_picker_->clear();
  node_picker_->addItem(tr("Whole cluster"), QString());
  for (const QString& n : nodes) node_picker_->addItem(n, n);
  node_picker_->setCurrentIndex(std::max(0, node_picker_->findData(node_)));
}

void CompareWindow::SetNode(const QString& node) {
  node_ = NodeChoices().contains(node) ? node : QString();
  node_picker_->setCurrentIndex(std::max(0, node_picker_->findData(node_)));
  Redraw(/*fit_time=*/false);  // Another node at the same moment the user zoomed to.
}

SeriesSummary CompareWindow::Summary(int side) const {
  const RecordingSeries* s = series_[side].get();
  if (!s) return {};
  const std::vector<SeriesPoint>* points = s->Points(node_);
  static const std::vector<SeriesPoint> kNone;
  return Summarize(*s, points ? *points : kNone, s->Latency(node_));
}

void CompareWindow::Redraw(bool fit_time) {
  QStringList legend;
  for (int side = 0; side < 2; ++side) {
    const RecordingSeries* s = series_[side].get();
    const QString name = s ? QFileInfo(s->path).fileName() : tr("(none)");
    legend << QStringLiteral("<b><span style='color:%1'>%2</span></b> %3")
                  .arg(SideColor(side).name(), QLatin1String(ComparePlots::kSideName[side]),
                       name.toHtmlEscaped());
  }
  legend_->setText(legend.join(QStringLiteral(" &nbsp; ")) + QStringLiteral(" &nbsp; ") +
                   (node_.isEmpty() ? tr("whole cluster") : node_.toHtmlEscaped()));
  plots_->Show(series_[kA].get(), series_[kB].get(), node_, fit_time);
  FillSummary();
  FillEvents();
}

void CompareWindow::FillSummary() {
  const QStringList rows = {tr("span (s)"),     tr("nodes"),    tr("total requests"),
                            tr("failed share"), tr("p50 (ms)"), tr("p99 (ms)")};
  summary_->setRowCount(int(rows.size()));
  summary_->setVerticalHeaderLabels(rows);
  const SeriesSummary a = Summary(kA), b = Summary(kB);
  const bool have[2] = {series_[kA] != nullptr, series_[kB] != nullptr};
  auto values = [](const SeriesSummary& s) {
    return std::vector<double>{s.span_s,       double(s.nodes), s.total_requests,
                               s.failed_share, s.p50_us / 1000, s.p99_us / 1000};
  };
  const std::vector<double> va = values(a), vb = values(b);
  const bool exact[2] = {a.latency_exact, b.latency_exact};
  const bool requests_exact[2] = {a.requests_exact, b.requests_exact};
  for (int row = 0; row < int(rows.size()); ++row) {
    auto text = [row, &exact, &requests_exact](double v, int side) {
      // A figure without a histogram to take it from is an approximation (compare_summary.h).
      const QString approx = std::isnan(v) ? QString() : QStringLiteral("\u2248 ");
      if (row == 1) return std::isnan(v) ? QStringLiteral("\u2013") : QString::number(v, 'f', 0);
      if (row == 2) return (requests_exact[side] ? QString() : approx) + Number(v, 0);
      if (row == 3) return Percent(v);
      if (row >= 4 && !exact[side]) return approx + Number(v);
      return Number(v);
    };
    const double ratio = have[0] && have[1] ? Ratio(va[size_t(row)], vb[size_t(row)]) : kNoFigure;
    const QString cells[3] = {
        have[0] ? text(va[size_t(row)], kA) : QString(),
        have[1] ? text(vb[size_t(row)], kB) : QString(),
        std::isnan(ratio) ? QStringLiteral("\u2013") : QString::number(ratio, 'f', 3)};
    for (int col = 0; col < 3; ++col) {
      auto* item = new QTableWidgetItem(cells[col]);
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      summary_->setItem(row, col, item);
    }
  }
}

void CompareWindow::FillEvents() {
  struct Row {
    qint64 offset_ms;
    int side;
    const SeriesEvent* event;
  };
  std::vector<Row> rows;
  for (int side = 0; side < 2; ++side) {
    if (!series_[side]) continue;
    for (const SeriesEvent& e : series_[side]->events) rows.push_back({e.offset_ms, side, &e});
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& x, const Row& y) { return x.offset_ms < y.offset_ms; });
  events_->setRowCount(int(rows.size()));
  for (int r = 0; r < int(rows.size()); ++r) {
    const Row& row = rows[size_t(r)];
    const QString cells[5] = {QLatin1String(ComparePlots::kSideName[row.side]),
                              Offset(row.offset_ms), row.event->node, row.event->kind,
                              row.event->detail};
    for (int col = 0; col < 5; ++col) {
      auto* item = new QTableWidgetItem(cells[col]);
      item->setForeground(SideColor(row.side));
      events_->setItem(r, col, item);
    }
  }
  events_->resizeColumnsToContents();
}

bool CompareWindow::ExportPng(const QString& path, QString* error) const {
  if (plots_->grab().save(path, "PNG")) return true;
  if (error) *error = tr("cannot write %1").arg(path);
  return false;
}

bool CompareWindow::ExportCsv(const QString& path, QString* error) const {
  return WriteCompareCsv(path, series_[kA].get(), series_[kB].get(), node_, error);
}

void CompareWindow::Browse(int side) {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Recording %1").arg(QLatin1String(ComparePlots::kSideName[side])),
      path_[side]->text(), tr("Recordings (*.rec *.ryrec *.sqlite);;All files (*)"));
  if (!path.isEmpty()) path_[side]->setText(path);
}

void CompareWindow::ExportPngInteractive() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export plots"), QStringLiteral("compare.png"), tr("PNG images (*.png)"));
  if (path.isEmpty()) return;
  QString error;
  if (!ExportPng(path, &error)) QMessageBox::warning(this, tr("Export PNG"), error);
}

void CompareWindow::ExportCsvInteractive() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export series"), QStringLiteral("compare.csv"), tr("CSV files (*.csv)"));
  if (path.isEmpty()) return;
  QString error;
  if (!ExportCsv(path, &error)) QMessageBox::warning(this, tr("Export CSV"), error);
}

}  // namespace railyard::ui
