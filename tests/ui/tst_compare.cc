// SPDX-License-Identifier: Apache-2.0
// The compare window and its series: two real recordings from `railyardctl sim --record` of one
// scenario under two policies, read back independently with trace::RecordingReader to check what
// the window shows; and the errors it shows for files that are not recordings.
#include <QAction>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <map>

#include "core/trace/recording_reader.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"
#include "tests/ui/screenshot.h"
#include "tests/ui/ui_test_support.h"
#include "ui/compare/compare_summary.h"
#include "ui/compare/compare_window.h"
#include "ui/compare/recording_loader.h"
#include "ui/compare/recording_series.h"
#include "ui/shell/main_window.h"
#include "ui/views/qcustomplot_include.h"

using railyard::testing::BuiltProgram;
using railyard::testing::SourcePath;

using namespace railyard;
using namespace railyard::ui;

using railyard::ui::testing::SaveScreenshot;
namespace {

// The two runs start an hour apart in recording time: the window must still align them.
constexpr qint64 kStartA = 1'700'000'000'000;
constexpr qint64 kStartB = kStartA + 3'600'000;
constexpr int kSeconds = 40;

QByteArray Sha256(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
}

// What a recording holds, read with the trace reader alone: per node and second (from the first
// thing recorded), the sum of the snapshots' request, error and rejection rates and their count.
struct Held {
  qint64 first_ms = 0;
  std::map<std::string, std::map<qint64, std::array<double, 4>>> by_node;
  std::map<qint64, double> cluster_requests;
  size_t events = 0;
};

Held ReadHeld(const QString& path) {
  Held held;
  std::unique_ptr<trace::RecordingReader> reader;
  if (!trace::RecordingReader::Open(path.toStdString(), &reader).ok()) return held;
  trace::TimeSpan span;
  if (!reader->Span(&span).ok()) return held;
  held.first_ms = span.first_unix_ms;
  std::vector<trace::Event> events;
  if (reader->Events(&events).ok()) held.events = events.size();
  for (auto c = reader->NewSnapshotCursor(span.first_unix_ms); c->Valid(); c->Next()) {
    const trace::Snapshot& s = c->snapshot();
    const qint64 second = (s.unix_ms - span.first_unix_ms) / 1000;
    auto& cell = held.by_node[s.node][second];
    cell[0] += s.telemetry.throughput().requests_per_s();
    cell[1] += s.telemetry.throughput().errors_per_s();
    cell[2] += s.telemetry.throughput().rejections_per_s();
    cell[3] += 1;
    held.cluster_requests[second] += s.telemetry.throughput().requests_per_s();
  }
  return held;
}

}  // namespace

class CompareTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString a_, b_;
  QJsonObject result_a_, result_b_;  // What `railyardctl sim --json` printed for each run.

  bool Simulate(const QString& policy, qint64 start_ms, const QString& out, QJsonObject* result) {
    QProcess sim;
    sim.start(BuiltProgram("railyardctl"),
              {"sim", SourcePath("resources/scenarios/04-flaky.scn"), "--policy", policy,
               "--duration-s", QString::number(kSeconds), "--start-unix-ms",
               QString::number(start_ms), "--record", out, "--json"});
    if (!sim.waitForFinished(120000) || sim.exitCode() != 0) {
      qWarning("%s", sim.readAllStandardError().constData());
      return false;
    }
    *result = QJsonDocument::fromJson(sim.readAllStandardOutput().trimmed()).object();
    return !result->isEmpty();
  }

  // Opens both in a window and waits for the loads; false if they did not finish.
  static bool OpenAndWait(CompareWindow* window, const QString& a, const QString& b) {
    QSignalSpy finished(window, &CompareWindow::LoadFinished);
    window->Open(a, b);
    return !finished.isEmpty() || finished.wait(60000);
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    a_ = dir_.filePath("flaky-lowest-slot.rec");
    b_ = dir_.filePath("flaky-least-loaded.rec");
    QVERIFY(Simulate("lowest-slot", kStartA, a_, &result_a_));
    QVERIFY(Simulate("least-loaded", kStartB, b_, &result_b_));
  }

  void seriesHoldWhatEachRecordingHolds() {
    for (const QString& path : {a_, b_}) {
      const Held held = ReadHeld(path);
      QVERIFY(!held.by_node.empty());
      RecordingSeries series;
      QString error;
      QVERIFY2(LoadRecordingSeries(path, {}, &series, &error), qPrintable(error));
      QCOMPARE(series.start_unix_ms, held.first_ms);
      QCOMPARE(series.bucket_ms, qint64{1000});
      QCOMPARE(series.nodes.size(), qsizetype(held.by_node.size()));  // 20 backends, clients.
      QCOMPARE(series.events.size(), qsizetype(held.events));
      for (const auto& [node, seconds] : held.by_node) {
        const std::vector<SeriesPoint>* points = series.Points(QString::fromStdString(node));
        QVERIFY(points);
        for (size_t b = 0; b < points->size(); ++b) {
          const auto it = seconds.find(qint64(b));
          const SeriesPoint& p = (*points)[b];
          if (it == seconds.end()) {
            QCOMPARE(p.snapshots, uint16_t{0});  // A gap: the node reported nothing then.
            continue;
          }
          const auto& [requests, errors, rejections, count] = it->second;
          QCOMPARE(double(p.snapshots), count);
          QCOMPARE(double(p.requests_per_s), requests / count);
          QCOMPARE(double(p.errors_per_s), errors / count);
          QCOMPARE(double(p.rejections_per_s), rejections / count);
        }
      }
      for (const auto& [second, requests] : held.cluster_requests) {
        QCOMPARE(double(series.cluster[size_t(second)].requests_per_s), requests);
      }
    }
  }

  void theTwoPoliciesDifferWhereTheyShould() {
    // Least-loaded counts the flaky backend's errors as load and steers away from it; lowest-slot
    // keeps sending it its share. The series must show that, or the window compares nothing.
    RecordingSeries a, b;
    QString error;
    QVERIFY2(LoadRecordingSeries(a_, {}, &a, &error), qPrintable(error));
    QVERIFY2(LoadRecordingSeries(b_, {}, &b, &error), qPrintable(error));
    const SeriesSummary flaky_a = Summarize(a, *a.Points("backend-3"));
    const SeriesSummary flaky_b = Summarize(b, *b.Points("backend-3"));
    QVERIFY2(flaky_a.failed > 3 * flaky_b.failed,
             qPrintable(QStringLiteral("%1 vs %2").arg(flaky_a.failed).arg(flaky_b.failed)));
  }

  void readingLeavesTheFilesAsTheyWere() {
    const QByteArray before = Sha256(a_);
    CompareWindow window;
    QVERIFY(OpenAndWait(&window, a_, b_));
    QVERIFY(window.series(CompareWindow::kA));
    QCOMPARE(Sha256(a_), before);
    QVERIFY(!QFile::exists(a_ + "-wal"));
    QVERIFY(!QFile::exists(a_ + "-shm"));
    QVERIFY(!QFile::exists(b_ + "-wal"));
  }

  // C15: the table's p50 and p99 over a simulator's recording are the ones `railyardctl sim`
  // printed for the run (it showed 30.1 and 29.6 ms against the simulator's 23.33 before), from
  // the clients' latency histogram the recording carries; a node without one is marked as an
  // approximation.
  void latencyOverTheSpanIsTheSimulatorsOwn() {
    CompareWindow window;
    QVERIFY(OpenAndWait(&window, a_, b_));
    QVERIFY2(window.ErrorText().isEmpty(), qPrintable(window.ErrorText()));
    for (const QString& node : {QString(), QStringLiteral("clients")}) {
      window.SetNode(node);
      int side = 0;
      for (const QJsonObject* printed : {&result_a_, &result_b_}) {
        const SeriesSummary s = window.Summary(side);
        QVERIFY(s.latency_exact);
        QCOMPARE(QString::number(s.p50_us / 1000, 'f', 3),
                 QString::number((*printed)["p50_ms"].toDouble(), 'f', 3));
        QCOMPARE(QString::number(s.p99_us / 1000, 'f', 3),
                 QString::number((*printed)["p99_ms"].toDouble(), 'f', 3));
        // The calls made over the span, counted, not integrated from rounded rates.
        QVERIFY(s.requests_exact);
        QCOMPARE(s.total_requests, (*printed)["requests"].toDouble());
        QCOMPARE(window.SummaryTable()->item(2, side)->text(),
                 QString::number(s.total_requests, 'f', 0));
        const QString cell = window.SummaryTable()->item(5, side)->text();
        QVERIFY2(!cell.startsWith(QStringLiteral("\u2248")), qPrintable(cell));
        ++side;
      }
    }
    window.SetNode(QStringLiteral("backend-3"));  // A server: no histogram in its telemetry.
    QVERIFY(!window.Summary(CompareWindow::kA).latency_exact);
    QVERIFY(!window.Summary(CompareWindow::kA).requests_exact);
    QVERIFY(window.SummaryTable()->item(5, 0)->text().startsWith(QStringLiteral("\u2248")));
    QVERIFY(window.SummaryTable()->item(2, 0)->text().startsWith(QStringLiteral("\u2248")));
  }

  void summaryAndRatiosComeFromTheSeries() {
    CompareWindow window;
    window.resize(1100, 820);
    window.show();
    QVERIFY(OpenAndWait(&window, a_, b_));
    QVERIFY2(window.ErrorText().isEmpty(), qPrintable(window.ErrorText()));
    const RecordingSeries* a = window.series(CompareWindow::kA);
    const RecordingSeries* b = window.series(CompareWindow::kB);
    QVERIFY(a && b);
    for (const QString& node : {QString(), QStringLiteral("backend-3")}) {
      window.SetNode(node);
      QCOMPARE(window.Node(), node);
      double rates[2] = {0, 0}, totals[2] = {0, 0}, failed[2] = {0, 0};
      int side = 0;
      for (const RecordingSeries* s : {a, b}) {
        for (const SeriesPoint& p : *s->Points(node)) {
          rates[side] += p.requests_per_s;  // One-second buckets.
          failed[side] += double(p.errors_per_s) + double(p.rejections_per_s);
        }
        const SeriesSummary summary = window.Summary(side);
        QVERIFY(rates[side] > 0);
        // The cluster's total is the clients' counted calls (above); a server's integrates.
        QCOMPARE(summary.requests_exact, node.isEmpty());
        totals[side] = node.isEmpty() ? summary.total_requests : rates[side];
        QCOMPARE(summary.total_requests, totals[side]);
        QCOMPARE(summary.failed_share, failed[side] / rates[side]);  // Like over like.
        QCOMPARE(summary.nodes, 21);
        QCOMPARE(summary.span_s, s->SpanSeconds());
        ++side;
      }
      // The table's B/A column is the ratio of its A and B columns' figures.
      QTableWidget* table = window.SummaryTable();
      const QString approx = node.isEmpty() ? QString() : QStringLiteral("\u2248 ");
      QCOMPARE(table->item(2, 0)->text(), approx + QString::number(totals[0], 'f', 0));
      QCOMPARE(table->item(2, 1)->text(), approx + QString::number(totals[1], 'f', 0));
      QCOMPARE(table->item(2, 2)->text(), QString::number(totals[1] / totals[0], 'f', 3));
      const double share_ratio = (failed[1] / rates[1]) / (failed[0] / rates[0]);
      QCOMPARE(table->item(3, 2)->text(), QString::number(share_ratio, 'f', 3));
      QCOMPARE(table->item(1, 2)->text(), QStringLiteral("1.000"));
      // Both overlaid on one time axis from each start, although B was recorded an hour later.
      QCustomPlot* requests = window.Plot(0);
      QCOMPARE(requests->graph(0)->data()->size(), a->Buckets());
      QCOMPARE(requests->graph(1)->data()->size(), b->Buckets());
      QCOMPARE(requests->graph(1)->data()->at(0)->key, 0.0);
      QCOMPARE(requests->graph(1)->data()->at(5)->value,
               double(b->Points(node)->at(5).requests_per_s));
    }
    // The flaky backend's errors are there, and so is the simulator's event, in both.
    QVERIFY(window.Summary(CompareWindow::kA).failed_share > 0);
    QVERIFY(window.Summary(CompareWindow::kA).p99_us > 0);  // The simulator records latency.
    QCOMPARE(window.EventMarks(), int(a->events.size() + b->events.size()));
    QVERIFY(window.EventMarks() >= 2);
    QCOMPARE(window.EventsTable()->rowCount(), window.EventMarks());
    // The scenario's event at 20 s: the simulator's recording starts at the scenario's time 0.
    QCOMPARE(a->start_unix_ms, kStartA);
    QCOMPARE(b->start_unix_ms, kStartB);
    QCOMPARE(window.EventsTable()->item(0, 1)->text(), QStringLiteral("+0:20"));
    // Zoomed to the flaky backend's start: picking another node keeps the moment in view.
    window.Plot(1)->xAxis->setRange(15, 25);
    window.SetNode("backend-3");
    for (int i = 0; i < 3; ++i) QCOMPARE(window.Plot(i)->xAxis->range(), QCPRange(15, 25));
    SaveScreenshot(&window, "compare_window_server_approx.png");  // A server's figures: "≈".
    window.SetNode(QString());
    QVERIFY(OpenAndWait(&window, a_, b_));  // A new load shows the whole span again.
    QCOMPARE(window.Plot(0)->xAxis->range().lower, 0.0);
    SaveScreenshot(&window, "compare_window.png");
  }

  void exportsWriteWhatIsShown() {
    CompareWindow window;
    window.show();
    QVERIFY(OpenAndWait(&window, a_, b_));
    window.SetNode("backend-0");
    QString error;
    const QString csv = dir_.filePath("compare.csv");
    QVERIFY2(window.ExportCsv(csv, &error), qPrintable(error));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
    const RecordingSeries* a = window.series(CompareWindow::kA);
    const RecordingSeries* b = window.series(CompareWindow::kB);
    QCOMPARE(lines.size(), 1 + std::max(a->Buckets(), b->Buckets()));
    QVERIFY(lines[0].startsWith("offset_s,a_requests_per_s,b_requests_per_s,"));
    const QStringList row = lines[3].split(',');
    QCOMPARE(row[0], QStringLiteral("2"));
    QCOMPARE(row[1].toDouble(), double(a->Points("backend-0")->at(2).requests_per_s));
    QCOMPARE(row[2].toDouble(), double(b->Points("backend-0")->at(2).requests_per_s));
    const QString png = dir_.filePath("compare.png");
    QVERIFY2(window.ExportPng(png, &error), qPrintable(error));
    QVERIFY(!QImage(png).isNull());
  }

  void memoryIsBoundedByCoarserBuckets() {
    // With room for few points, buckets widen to whole seconds; totals stay the same.
    RecordingSeries fine, coarse;
    QString error;
    QVERIFY2(LoadRecordingSeries(a_, {}, &fine, &error), qPrintable(error));
    LoadSeriesOptions options;
    options.max_points = 22 * 10;  // 21 nodes and the cluster, about 10 buckets.
    QVERIFY2(LoadRecordingSeries(a_, options, &coarse, &error), qPrintable(error));
    QVERIFY(coarse.bucket_ms >= 4000);
    QVERIFY(size_t(coarse.Buckets()) * 22 <= size_t(options.max_points) + 22);
    QVERIFY(coarse.MemoryBytes() < fine.MemoryBytes() / 3);
    const double total_fine = Summarize(fine, fine.cluster).total_requests;
    const double total_coarse = Summarize(coarse, coarse.cluster).total_requests;
    QVERIFY(std::abs(total_fine - total_coarse) <= 1e-4 * total_fine);
  }

  void progressIsReportedUpToTheEnd() {
    RecordingSeries series;
    QString error;
    std::vector<double> seen;
    LoadSeriesOptions options;
    options.progress = [&seen](double fraction) { seen.push_back(fraction); };
    QVERIFY2(LoadRecordingSeries(a_, options, &series, &error), qPrintable(error));
    QVERIFY(seen.size() >= 3);  // 21 nodes x 40 s of snapshots, a report every 256.
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
    QCOMPARE(seen.back(), 1.0);
    // And in the window: the loader's progress reaches the GUI thread.
    CompareWindow window;
    QSignalSpy progress(window.findChild<RecordingLoader*>(), &RecordingLoader::Progress);
    QVERIFY(OpenAndWait(&window, a_, b_));
    QVERIFY(!progress.isEmpty());
  }

  void aNewLoadSupersedesTheOneRunning() {
    // The first pair's results must never show once the second pair was asked for.
    CompareWindow window;
    QSignalSpy finished(&window, &CompareWindow::LoadFinished);
    window.Open(a_, b_);
    QVERIFY(OpenAndWait(&window, b_, dir_.filePath("gone.rec")));
    QCOMPARE(window.series(CompareWindow::kA)->path, b_);
    QVERIFY(!window.series(CompareWindow::kB));
    QVERIFY(window.ErrorText().contains("gone.rec"));
    QCoreApplication::processEvents();
    QCOMPARE(window.series(CompareWindow::kA)->path, b_);
    // Closing while loading: the destructor cancels and joins the loaders.
    auto* closing = new CompareWindow;
    closing->Open(a_, b_);
    delete closing;
  }

  void theFileMenuOpensACompareWindow() {
    MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir_.filePath("audit.sqlite");
    MainWindow main(options);
    QAction* compare = nullptr;
    for (QAction* action : main.findChildren<QAction*>()) {
      if (action->text() == "&Compare recordings...") compare = action;
    }
    QVERIFY(compare);
    QVERIFY(main.findChildren<CompareWindow*>().isEmpty());
    compare->trigger();
    const QList<CompareWindow*> windows = main.findChildren<CompareWindow*>();
    QCOMPARE(windows.size(), qsizetype(1));
    QVERIFY(windows[0]->isWindow());
    QVERIFY(windows[0]->isVisible());
  }

  void theConsoleComparesFromTheCommandLine() {
    // `railyard --compare A B` without a display writes its screenshot once both are loaded.
    const QString shot = dir_.filePath("cli.png");
    QProcess railyard;
    railyard.start(BuiltProgram("railyard"), {"--compare", a_, b_, "--screenshot", shot});
    QVERIFY(railyard.waitForFinished(60000));
    QVERIFY2(railyard.exitCode() == 0, railyard.readAllStandardError().constData());
    QVERIFY(!QImage(shot).isNull());
    // A file that is not there: said on stderr (and in the window), exit code 1.
    railyard.start(BuiltProgram("railyard"),
                   {"--compare", a_, dir_.filePath("missing.rec"), "--screenshot", shot});
    QVERIFY(railyard.waitForFinished(60000));
    QCOMPARE(railyard.exitCode(), 1);
    QVERIFY(railyard.readAllStandardError().contains("Recording B: "));
  }

  void aRecordingOfRealNodesHasLatency() {
    // A recording of real nodes carries latency too, and a recording compared with itself gives
    // ratios of one throughout.
    const QString real = SourcePath("tests/data/console_small.rec");
    CompareWindow window;
    QVERIFY(OpenAndWait(&window, real, real));
    QVERIFY2(window.ErrorText().isEmpty(), qPrintable(window.ErrorText()));
    const SeriesSummary a = window.Summary(CompareWindow::kA);
    QVERIFY(a.total_requests > 0);
    QVERIFY(a.p50_us > 0);
    QVERIFY(a.p99_us >= a.p50_us);
    QVERIFY(window.Plot(2)->graph(0)->data()->size() > 0);
    for (int row = 0; row < window.SummaryTable()->rowCount(); ++row) {
      const QString ratio = window.SummaryTable()->item(row, 2)->text();
      QVERIFY2(ratio == "1.000" || (row == 3 && a.failed == 0), qPrintable(ratio));
    }
  }

  void weightedQuantileAndRatio() {
    QCOMPARE(WeightedQuantile({{10, 1}, {20, 1}, {30, 2}}, 0.5), 20.0);
    QCOMPARE(WeightedQuantile({{10, 99}, {500, 1}}, 0.99), 10.0);
    QCOMPARE(WeightedQuantile({{10, 98}, {500, 2}}, 0.99), 500.0);
    QVERIFY(std::isnan(WeightedQuantile({}, 0.5)));
    QCOMPARE(Ratio(4, 6), 1.5);
    QVERIFY(std::isnan(Ratio(0, 6)));
  }

  void badFilesAreExplainedInTheWindow() {
    const QString missing = dir_.filePath("no-such.rec");
    const QString junk = dir_.filePath("junk.rec");
    {
      QFile f(junk);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray(8192, 'x'));
    }
    // A recording cut short, as a copy interrupted half way leaves it.
    const QString truncated = dir_.filePath("truncated.rec");
    {
      QFile in(a_);
      QVERIFY(in.open(QIODevice::ReadOnly));
      QFile out(truncated);
      QVERIFY(out.open(QIODevice::WriteOnly));
      out.write(in.read(in.size() / 2));
    }
    const QString empty = dir_.filePath("empty.rec");
    {
      QFile f(empty);
      QVERIFY(f.open(QIODevice::WriteOnly));
    }

    CompareWindow window;
    window.resize(1000, 700);
    window.show();
    struct Case {
      QString path;
      QString says;
    };
    const Case cases[] = {{missing, "no such recording file"},
                          {junk, "not a SQLite database"},
                          {truncated, "damaged or truncated recording"},
                          {empty, "not a recording"}};
    for (const Case& c : cases) {
      QVERIFY(OpenAndWait(&window, c.path, b_));
      QVERIFY(!window.series(CompareWindow::kA));
      QVERIFY(window.series(CompareWindow::kB));  // The good one is still shown.
      const QString text = window.ErrorText();
      QVERIFY2(text.startsWith("Recording A: ") && text.contains(c.path) && text.contains(c.says),
               qPrintable(text));
      QVERIFY(!text.contains("Recording B"));
      const QLabel* shown = nullptr;
      for (const QLabel* label : window.findChildren<QLabel*>()) {
        if (label->text() == text) shown = label;
      }
      QVERIFY2(shown && shown->isVisible(), "the error is shown in the window");
      if (c.path == truncated) SaveScreenshot(&window, "compare_window_error.png");
    }
    QVERIFY(!QFile::exists(truncated + "-wal"));
    QVERIFY(OpenAndWait(&window, a_, QString()));
    QCOMPARE(window.ErrorText(), QStringLiteral("Recording B: no file chosen"));
    QVERIFY(OpenAndWait(&window, a_, b_));
    QVERIFY(window.ErrorText().isEmpty());
  }
};

RAILYARD_QTEST_MAIN(CompareTest)
#include "tst_compare.moc"
