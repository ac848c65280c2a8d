// SPDX-License-Identifier: Apache-2.0
// console_frame_bench: the console's GUI-thread cost per telemetry frame. Generates a recording
// of a large cluster (default 100 nodes, 200 clients, 10 Hz, with slot tables, pools, storage
// and throughput), replays it frame by frame at full speed through ReplaySource -> ClusterState
// -> every model -> a MainWindow shown offscreen, once per tab, and prints the distribution of
// update+paint time per frame (ClusterState::ApplyFrame with all models, then the repaint of
// what is visible, by processing the posted update requests) as JSON lines.
//
// --soak-seconds N then keeps feeding generated frames (the same cluster, continuing in time) for
// N seconds of cluster time straight into ClusterState, switching tab every 10 s, and samples the
// process's resident memory (/proc/self/statm) every --rss-every-s: a synthetic long replay that
// shows whether memory flattens (a 10-minute 300-node recording would be gigabytes of SQLite).
//
// --recording PATH replays a recording made by `railyardctl record` from a live cluster instead of
// a generated one (--hz: its polling rate), so a real fleet's frames can be profiled again and
// again without the fleet (docs/benchmarks.md, the Flow tab at 48 nodes).
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTabWidget>
#include <QTemporaryDir>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench/distribution.h"
#include "core/base/allocator.h"
#include "tests/ui/console_fixture.h"
#include "ui/models/cluster_state.h"
#include "ui/shell/main_window.h"
#include "ui/sources/replay_source.h"

namespace {

using railyard::bench::Distribution;
using railyard::bench::Summarize;

// A recording does not say how many clients it saw: null then.
std::string ClientsJson(int clients) {
  return clients < 0 ? std::string("null") : std::to_string(clients);
}

void PrintDistribution(const char* bench, const QString& tab, int nodes, int clients, int hz,
                       const std::vector<double>& total, const std::vector<double>& apply,
                       const std::vector<double>& paint, const std::vector<double>& read,
                       int snapshots) {
  const Distribution t = Summarize(total), a = Summarize(apply), p = Summarize(paint),
                     r = Summarize(read);
  std::printf(
      "{\"bench\":\"%s\",\"tab\":\"%s\",\"nodes\":%d,\"clients\":%s,\"hz\":%d,"
      "\"frames\":%zu,\"snapshots_per_frame\":%.1f,\"p50_ms\":%.3f,\"p90_ms\":%.3f,"
      "\"p99_ms\":%.3f,\"max_ms\":%.3f,\"apply_p50_ms\":%.3f,\"apply_p99_ms\":%.3f,"
      "\"paint_p50_ms\":%.3f,\"paint_p99_ms\":%.3f,\"read_p50_ms\":%.3f,\"read_p99_ms\":%.3f}\n",
      bench, qPrintable(tab), nodes, ClientsJson(clients).c_str(), hz, total.size(),
      double(snapshots) / double(std::max<size_t>(1, total.size())), t.p50, t.p90, t.p99, t.max,
      a.p50, a.p99, p.p50, p.p99, r.p50, r.p99);
  std::fflush(stdout);
}

// Resident memory of this process in MiB, from /proc/self/statm (its second field, in pages).
double ResidentMiB() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return -1;
  unsigned long size = 0, resident = 0;
  const int read = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  if (read != 2) return -1;
  return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"console_frame_bench: GUI-thread update+paint time per telemetry frame"};
  int nodes = 100, clients = 200, seconds = 20, hz = 10, pool_size = 8;
  int soak_seconds = 0, rss_every_s = 5;
  std::string tabs_option = "Overview,Slots,Flow,Compaction,Bloom,Throughput,Replication";
  std::string frame_times_path;
  std::string recording_path;
  app.add_option("--nodes", nodes, "Nodes in the generated cluster")->capture_default_str();
  app.add_option("--clients", clients, "Clients in the generated cluster")->capture_default_str();
  app.add_option("--seconds", seconds, "Length of the recording")->capture_default_str();
  CLI::Option* hz_option =
      app.add_option("--hz", hz, "Telemetry frames per second")->capture_default_str();
  app.add_option("--tabs", tabs_option, "Tabs to measure, comma-separated")->capture_default_str();
  app.add_option("--pool-size", pool_size, "Connections per client, each to another server")
      ->capture_default_str();
  app.add_option("--soak-seconds", soak_seconds,
                 "Then feed this many seconds of further frames, sampling resident memory")
      ->capture_default_str();
  app.add_option("--rss-every-s", rss_every_s, "Cluster seconds between memory samples")
      ->capture_default_str();
  app.add_option("--frame-times", frame_times_path,
                 "Also write each frame's apply and paint time to this file, one JSON object a "
                 "line: what a percentile hides, such as a spike every few seconds");
  app.add_option("--recording", recording_path,
                 "Replay this recording (railyardctl record, polled at --hz) instead of a "
                 "generated cluster; --nodes, --clients, --seconds and --pool-size then do not "
                 "apply, nor does --soak-seconds")
      ->check(CLI::ExistingFile);
  CLI11_PARSE(app, argc, argv);
  // A recording's polling rate is the one it was made at (railyardctl record's default is 1 s):
  // stepped at another, most frames would be empty and the figures theirs.
  if (!recording_path.empty() && hz_option->count() == 0) {
    std::fprintf(stderr,
                 "console_frame_bench: --recording needs --hz, the rate it was recorded at "
                 "(railyardctl record --interval-ms 100: --hz 10)\n");
    return 2;
  }
  if (!recording_path.empty() && soak_seconds > 0) {
    std::fprintf(stderr, "console_frame_bench: --soak-seconds needs a generated cluster\n");
    return 2;
  }
  if (nodes < 1 || clients < 0 || seconds < 1 || hz < 1 || hz > 100 || pool_size < 1 ||
      soak_seconds < 0 || rss_every_s < 1) {
    std::fprintf(stderr, "console_frame_bench: bad arguments\n");
    return 2;
  }
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication qapp(argc, argv);

  std::unique_ptr<std::FILE, int (*)(std::FILE*)> frame_times(nullptr, &std::fclose);
  if (!frame_times_path.empty()) {
    frame_times.reset(std::fopen(frame_times_path.c_str(), "w"));
    if (!frame_times) {
      std::fprintf(stderr, "console_frame_bench: cannot write %s: %s\n", frame_times_path.c_str(),
                   std::strerror(errno));
      return 1;
    }
  }

  QTemporaryDir dir;
  const QString path = recording_path.empty() ? dir.filePath("console_frame_bench.rec")
                                              : QString::fromStdString(recording_path);
  railyard::ui::testing::GeneratedCluster cluster;
  cluster.nodes = nodes;
  cluster.clients = clients;
  cluster.frame_ms = 1000 / hz;
  cluster.pool_size = pool_size;
  int frames = seconds * hz;
  if (recording_path.empty()) {
    QElapsedTimer generate;
    generate.start();
    if (auto s =
            railyard::ui::testing::WriteGeneratedRecording(path.toStdString(), cluster, frames);
        !s.ok()) {
      std::fprintf(stderr, "console_frame_bench: %s\n", s.ToString().c_str());
      return 1;
    }
    std::fprintf(stderr, "generated %d frames of %d nodes and %d clients in %.1f s\n", frames,
                 nodes, clients, double(generate.elapsed()) / 1000.0);
  }

  railyard::ui::MainWindow::Options options;
  options.use_keyring = false;
  options.audit_path = dir.filePath("audit.sqlite");
  railyard::ui::MainWindow window(options);
  window.resize(1600, 1000);
  QString error;
  if (!window.OpenRecording(path, &error)) {
    std::fprintf(stderr, "console_frame_bench: %s\n", qPrintable(error));
    return 1;
  }
  window.show();
  QCoreApplication::processEvents();
  railyard::ui::ReplaySource* replay = window.replay_source();
  if (!recording_path.empty()) {
    // The recording's own span at its polling rate; its nodes as recorded (clients unknown).
    frames = int((replay->EndMs() - replay->StartMs()) / cluster.frame_ms) + 1;
    nodes = replay->RecordedNodeCount();
    clients = -1;
    std::fprintf(stderr, "replaying %d frames of %d nodes from %s\n", frames, nodes,
                 recording_path.c_str());
  }
  replay->SetTickIntervalMs(cluster.frame_ms);  // One recorded frame per step at 1x.
  replay->SetSpeed(1.0);

  std::vector<double> all_frames;
  for (const QString& tab : QString::fromStdString(tabs_option).split(',')) {
    const int index = window.TabIndex(tab.trimmed());
    if (index < 0) {
      std::fprintf(stderr, "console_frame_bench: no tab %s\n", qPrintable(tab));
      return 2;
    }
    window.Tabs()->setCurrentIndex(index);
    replay->Seek(replay->StartMs());
    // The seek's own repaint is not a frame's. A QEventLoop's processEvents, so that a profile
    // collecting QCoreApplication::processEvents (docs/benchmarks.md) leaves it out too.
    QEventLoop settle;
    settle.processEvents();
    std::vector<double> total, apply, paint, read;
    int snapshots = 0;
    for (int f = 1; f < frames; ++f) {
      QElapsedTimer step;
      step.start();
      replay->Step();  // Reads the frame's snapshots, then applies them (timed inside).
      const double step_ms = double(step.nsecsElapsed()) / 1e6;
      const double apply_ms = double(replay->LastApplyNs()) / 1e6;
      QElapsedTimer repaint;
      repaint.start();
      // Delivers the update requests, which paints what changed; QCustomPlot's queued replots
      // post their paint from inside that pass, so a second pass keeps it in this frame.
      QCoreApplication::processEvents();
      QCoreApplication::processEvents();
      const double paint_ms = double(repaint.nsecsElapsed()) / 1e6;
      total.push_back(apply_ms + paint_ms);
      apply.push_back(apply_ms);
      paint.push_back(paint_ms);
      read.push_back(step_ms - apply_ms);
      snapshots += replay->LastFrameSnapshots();
      if (frame_times) {
        std::fprintf(frame_times.get(),
                     "{\"tab\":\"%s\",\"frame\":%d,\"apply_ms\":%.3f,\"paint_ms\":%.3f}\n",
                     qPrintable(tab.trimmed()), f, apply_ms, paint_ms);
      }
    }
    all_frames.insert(all_frames.end(), total.begin(), total.end());
    if (frame_times) std::fflush(frame_times.get());
    PrintDistribution("console_frame", tab.trimmed(), nodes, clients, hz, total, apply, paint, read,
                      snapshots);
  }
  const Distribution d = Summarize(all_frames);
  std::printf(
      "{\"bench\":\"console_frame\",\"tab\":\"all\",\"nodes\":%d,\"clients\":%s,\"hz\":%d,"
      "\"frames\":%zu,\"p50_ms\":%.3f,\"p90_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f,"
      "\"bar_p99_ms\":16,\"meets_bar\":%s,\"malloc\":\"%s\"}\n",
      nodes, ClientsJson(clients).c_str(), hz, all_frames.size(), d.p50, d.p90, d.p99, d.max,
      d.p99 < 16.0 ? "true" : "false", railyard::base::AllocatorDescription().c_str());
  std::fflush(stdout);
  if (soak_seconds == 0) return 0;

  // The soak: frames after the recording's last, straight into ClusterState.
  railyard::ui::ClusterState* state = window.State();
  std::vector<int> node_index(static_cast<size_t>(nodes));
  for (int n = 0; n < nodes; ++n) {
    node_index[static_cast<size_t>(n)] =
        state->IndexOfName(QString::fromStdString(cluster.NodeName(n)));
  }
  const QStringList soak_tabs = QString::fromStdString(tabs_option).split(',');
  const int soak_frames = soak_seconds * hz;
  std::vector<double> total, apply, paint, read;
  double start_rss = ResidentMiB(), peak_rss = start_rss, half_rss = start_rss;
  std::printf("{\"bench\":\"console_memory\",\"t_s\":0,\"rss_mib\":%.1f}\n", start_rss);
  std::vector<railyard::ui::ClusterState::Update> updates;
  for (int i = 0; i < soak_frames; ++i) {
    const int f = frames + i;
    if (i % (10 * hz) == 0) {
      const int tab = (i / (10 * hz)) % static_cast<int>(soak_tabs.size());
      window.Tabs()->setCurrentIndex(window.TabIndex(soak_tabs[tab].trimmed()));
      QCoreApplication::processEvents();
    }
    QElapsedTimer generate_frame;
    generate_frame.start();
    const std::vector<std::vector<int>> assignment = cluster.Assignment(f);
    updates.clear();
    for (int n = 0; n < nodes; ++n) {
      railyard::ui::ClusterState::Update u;
      u.node = node_index[static_cast<size_t>(n)];
      u.telemetry = std::make_shared<const railyard::admin::Telemetry>(
          cluster.Telemetry(n, f, false, assignment));
      updates.push_back(std::move(u));
    }
    read.push_back(double(generate_frame.nsecsElapsed()) / 1e6);
    QElapsedTimer step;
    step.start();
    state->ApplyFrame(updates, cluster.TimeOf(f));
    const double apply_ms = double(step.nsecsElapsed()) / 1e6;
    QElapsedTimer repaint;
    repaint.start();
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
    const double paint_ms = double(repaint.nsecsElapsed()) / 1e6;
    total.push_back(apply_ms + paint_ms);
    apply.push_back(apply_ms);
    paint.push_back(paint_ms);
    if ((i + 1) % (rss_every_s * hz) == 0) {
      const double rss = ResidentMiB();
      peak_rss = std::max(peak_rss, rss);
      if (i + 1 <= soak_frames / 2) half_rss = rss;
      // The frames since the last sample too: a cost that grows with history shows here.
      const auto interval = static_cast<std::ptrdiff_t>(rss_every_s * hz);
      const Distribution recent =
          Summarize(std::vector<double>(total.end() - interval, total.end()));
      const Distribution recent_apply =
          Summarize(std::vector<double>(apply.end() - interval, apply.end()));
      std::printf(
          "{\"bench\":\"console_memory\",\"t_s\":%d,\"rss_mib\":%.1f,\"p50_ms\":%.3f,"
          "\"p99_ms\":%.3f,\"apply_p50_ms\":%.3f}\n",
          (i + 1) / hz, rss, recent.p50, recent.p99, recent_apply.p50);
      std::fflush(stdout);
    }
  }
  PrintDistribution("console_soak", QStringLiteral("rotating"), nodes, clients, hz, total, apply,
                    paint, read, nodes * soak_frames);
  std::printf(
      "{\"bench\":\"console_memory\",\"seconds\":%d,\"start_rss_mib\":%.1f,"
      "\"half_rss_mib\":%.1f,\"peak_rss_mib\":%.1f,\"end_rss_mib\":%.1f}\n",
      soak_seconds, start_rss, half_rss, peak_rss, ResidentMiB());
  return 0;
}
