// SPDX-License-Identifier: Apache-2.0
// fleet_bench: the console watching a fleet of real processes. Brings up a lab (core/load/lab.h:
// by default one updater, 47 replicas and 96 load clients reading from deterministic subsets of
// 8, each host in a network namespace of its own as root), opens the console (a MainWindow,
// offscreen unless QT_QPA_PLATFORM says otherwise) on its cluster file at the default poll rate,
// and measures, printing one JSON object a line:
//   fleet_frame    per tab: the GUI thread's time per polled frame (ClusterState::ApplyFrame with
//                  every model, then the repaint it asks for), p50/p99/max; target p99 < 16 ms;
//   fleet_polling  per tab: the time between a node's fresh telemetry reaching the GUI thread,
//                  over every node; target: none above two poll periods;
//   fleet_lag      the replicas' lag (documents, seconds) over every frame, where known;
//   fleet_cpu      cores used by the updater, the replicas, the clients and the console, with the
//                  console closed and with it polling (the difference is the nodes' telemetry);
//   fleet_memory   resident and peak memory per role, and the console's.
// Then takes the lab down (also on Ctrl-C; after a crash, `railyardctl lab down --dir DIR`).
// --console-cpu N gives the console CPU N alone and the lab every other one, so that its frames
// are measured apart from a fleet that may fill the machine; --fleet-nice N lowers every lab
// thread's priority instead, as if the hosts were other machines, while the fleet keeps both cores
// for what the console leaves. While tabs are measured, a stall (no frame applied for --stall-ms)
// prints what each of the console's threads did during it (bench/stall_watch.h).
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "bench/distribution.h"
#include "bench/proc_sample.h"
#include "bench/stall_watch.h"
#include "core/cluster/text_files.h"
#include "core/load/lab.h"
#include "ui/models/cluster_state.h"
#include "ui/shell/main_window.h"
#include "ui/sources/live_source.h"

namespace {

namespace fs = std::filesystem;
using railyard::bench::Distribution;
using railyard::bench::ProcSample;
using railyard::bench::ReadProc;
using railyard::bench::Summarize;

std::atomic<bool> g_stop{false};
int g_console_cpu = -1;  // --console-cpu, once the pinning took (every line says it).
void OnSignal(int) { g_stop = true; }

// CPU seconds by role ("updater", "replica", "client") over every host of the lab.
std::map<std::string, double> CpuByRole(const railyard::lab::State& lab) {
  std::map<std::string, double> cpu;
  for (const railyard::lab::Host& h : lab.host()) cpu[h.role()] += ReadProc(h.pid()).cpu_s;
  return cpu;
}

void PrintCpu(const char* phase, const std::map<std::string, double>& before,
              const std::map<std::string, double>& after, double console_s, double wall_s) {
  auto cores = [&](const std::string& role) {
    const auto a = after.find(role), b = before.find(role);
    if (a == after.end() || b == before.end()) return 0.0;
    return (a->second - b->second) / wall_s;
  };
  std::printf(
      "{\"bench\":\"fleet_cpu\",\"phase\":\"%s\",\"console_cpu\":%d,\"wall_s\":%.1f,\"updater_"
      "cores\":%.3f,"
      "\"replicas_cores\":%.3f,\"clients_cores\":%.3f,\"console_cores\":%.3f}\n",
      phase, g_console_cpu, wall_s, cores("updater"), cores("replica"), cores("client"),
      console_s / wall_s);
  std::fflush(stdout);
}

// Every thread of `pid` at nice `nice` (setpriority acts on one thread); false if any refused.
bool Renice(pid_t pid, int nice) {
  const std::vector<pid_t> tids = railyard::bench::ThreadsOf(pid);
  bool all = !tids.empty();
  for (pid_t tid : tids) all = ::setpriority(PRIO_PROCESS, id_t(tid), nice) == 0 && all;
  return all;
}

// For a stall's report (StallWatch's context), taken as it is seen and as it ends: the load
// average, how many of the lab's threads were runnable, and at the end the hosts that used the
// most CPU since the start and where the machine's CPU time went meanwhile (/proc/stat: user,
// system, idle, softirq, and steal: time a virtual machine's CPUs did not run at all), as a JSON
// object.
class FleetContext {
 public:
  explicit FleetContext(const railyard::lab::State& lab) : lab_(lab) {}
  std::string operator()(bool stall_begins) {
    std::ifstream loadavg("/proc/loadavg");
    std::string one;
    loadavg >> one;
    int runnable = 0;
    std::map<std::string, double> cpu;
    for (const railyard::lab::Host& h : lab_.host()) {
      for (pid_t tid : railyard::bench::ThreadsOf(h.pid())) {
        runnable += railyard::bench::ThreadState(h.pid(), tid) == 'R';
      }
      cpu[h.name()] = ReadProc(h.pid()).cpu_s;
    }
    std::string out =
        "{\"loadavg_1m\":" + one + ",\"lab_threads_runnable\":" + std::to_string(runnable);
    // The machine's "cpu" line: user nice system idle iowait irq softirq steal, in ticks.
    std::array<uint64_t, 8> ticks{};
    {
      std::ifstream stat("/proc/stat");
      std::string cpu_label;
      stat >> cpu_label;
      for (uint64_t& t : ticks) stat >> t;
    }
    if (!stall_begins) {
      const double ms_per_tick = 1000.0 / double(sysconf(_SC_CLK_TCK));
      const char* names[] = {"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"};
      out += ",\"machine_ms\":{";
      for (size_t i = 0; i < ticks.size(); ++i) {
        out += (i ? ",\"" : "\"") + std::string(names[i]) +
               "\":" + std::to_string(int(double(ticks[i] - ticks_at_start_[i]) * ms_per_tick));
      }
      out += "}";
      std::vector<std::pair<double, std::string>> used;
      for (const auto& [name, s] : cpu) used.push_back({(s - cpu_at_start_[name]) * 1000, name});
      std::sort(used.rbegin(), used.rend());
      double total = 0;
      for (const auto& u : used) total += u.first;
      out += ",\"lab_cpu_ms\":" + std::to_string(int(total)) + ",\"busiest\":[";
      for (size_t i = 0; i < used.size() && i < 5; ++i) {
        out += (i ? ",\"" : "\"") + used[i].second + " " + std::to_string(int(used[i].first)) +
               " ms\"";
      }
      out += "]";
    } else {
      cpu_at_start_ = std::move(cpu);
      ticks_at_start_ = ticks;
    }
    return out + "}";
  }

 private:
  const railyard::lab::State& lab_;
  std::map<std::string, double> cpu_at_start_;
  std::array<uint64_t, 8> ticks_at_start_{};
};

// Every thread of `pid` onto `cpus` (sched_setaffinity acts on one thread); false if any refused.
bool Pin(pid_t pid, const cpu_set_t& cpus) {
  const std::vector<pid_t> tids = railyard::bench::ThreadsOf(pid);
  bool ok = !tids.empty();
  for (pid_t tid : tids) ok = sched_setaffinity(tid, sizeof(cpus), &cpus) == 0 && ok;
  return ok;
}

// Waits (serving the event loop) until `done` or `timeout_ms`; false on the timeout or a signal.
template <typename Done>
bool WaitUntil(Done done, qint64 timeout_ms) {
  QElapsedTimer t;
  t.start();
  QTimer wake;  // Blocks between events, as the console's own loop would, rather than spinning.
  wake.start(20);
  while (!done()) {
    if (g_stop || t.elapsed() > timeout_ms) return false;
    QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
  }
  return true;
}

// Serves the event loop for `ms` (or until a signal).
void RunFor(qint64 ms) {
  WaitUntil([] { return false; }, ms);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fleet_bench: the console watching a lab of real nodes and load clients"};
  std::string dir, railyardctl;
  int replicas = 47, clients = 96, subset = 8;
  double client_rate = 20, per_tab_s = 20, idle_s = 20;
  bool use_lab = false;
  int console_cpu = -1;
  int fleet_nice = 0;
  int stall_ms = 250;  // Two and a half poll periods.
  std::string tabs_option = "Overview,Slots,Flow,Compaction,Bloom,Throughput,Replication";
  std::string screenshot_dir;
  app.add_option("--dir", dir, "The lab's folder (default: a temporary one)");
  app.add_flag("--use-lab", use_lab, "Watch the lab already up in --dir; leave it up");
  app.add_option("--replicas", replicas, "Replicas beside the updater")->capture_default_str();
  app.add_option("--clients", clients, "Load clients")->capture_default_str();
  app.add_option("--client-subset", subset, "Replicas each client reads from")
      ->capture_default_str();
  app.add_option("--client-rate", client_rate, "Calls per second of each client")
      ->capture_default_str();
  app.add_option("--per-tab-s", per_tab_s, "Seconds measured on each tab")->capture_default_str();
  app.add_option("--idle-s", idle_s, "Seconds measured with the console closed")
      ->capture_default_str();
  app.add_option("--tabs", tabs_option, "Tabs to measure, comma-separated")->capture_default_str();
  app.add_option("--screenshot-dir", screenshot_dir, "Save each tab as fleet_<tab>.png here");
  app.add_option("--console-cpu", console_cpu,
                 "Run the console on this CPU alone and the lab's processes on the others");
  app.add_option("--fleet-nice", fleet_nice,
                 "Every lab thread at this nice value (1-19), the console at its own")
      ->check(CLI::Range(0, 19));
  app.add_option("--stall-ms", stall_ms,
                 "Report what the console's threads did whenever no frame applied for this long")
      ->capture_default_str()
      ->check(CLI::Range(50, 600000));
  app.add_option("--railyardctl", railyardctl,
                 "railyardctl, for the load clients (default: beside "
                 "this program)");
  CLI11_PARSE(app, argc, argv);
  if (per_tab_s <= 0 || idle_s <= 0 || (use_lab && dir.empty())) {
    std::fprintf(stderr, "fleet_bench: bad arguments (--use-lab needs --dir)\n");
    return 2;
  }
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication qapp(argc, argv);
  ::signal(SIGINT, OnSignal);
  ::signal(SIGTERM, OnSignal);

  QTemporaryDir temporary;
  if (dir.empty()) dir = temporary.filePath("lab").toStdString();
  if (railyardctl.empty()) {
    std::error_code ec;
    railyardctl = (fs::read_symlink("/proc/self/exe", ec).parent_path() / "railyardctl").string();
  }
  railyard::lab::State lab;
  QElapsedTimer up_time;
  up_time.start();
  if (!use_lab) {
    railyard::load::LabOptions options;
    options.dir = dir;
    options.replicas = replicas;
    options.clients = clients;
    options.client_subset = subset;
    options.client_rate = client_rate;
    options.ctl_binary = railyardctl;
    options.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    if (auto s = railyard::load::LabUp(options, &lab); !s.ok()) {
      std::fprintf(stderr, "fleet_bench: %s\n", s.message().c_str());
      std::vector<std::string> removed;
      (void)railyard::load::LabDown(dir, &removed);
      return 1;
    }
  } else if (auto s = railyard::load::ReadLabState(dir, &lab); !s.ok()) {
    std::fprintf(stderr, "fleet_bench: %s\n", s.message().c_str());
    return 1;
  }
  const double up_s = double(up_time.elapsed()) / 1000.0;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (console_cpu >= 0) {
    if (console_cpu >= cpus || cpus < 2) {
      std::fprintf(stderr, "fleet_bench: --console-cpu needs one of %ld CPUs and another left\n",
                   cpus);
      console_cpu = -1;
    } else {
      cpu_set_t console_set, lab_set;
      CPU_ZERO(&console_set);
      CPU_ZERO(&lab_set);
      for (int c = 0; c < cpus; ++c) CPU_SET(c, c == console_cpu ? &console_set : &lab_set);
      bool pinned = Pin(::getpid(), console_set);
      for (const railyard::lab::Host& h : lab.host()) pinned = Pin(h.pid(), lab_set) && pinned;
      std::fprintf(stderr, "console on CPU %d, the lab on the other %ld%s\n", console_cpu, cpus - 1,
                   pinned ? "" : " (some threads refused)");
      g_console_cpu = console_cpu;
    }
  }
  if (fleet_nice > 0) {
    bool all = true;
    for (const railyard::lab::Host& h : lab.host()) all = Renice(h.pid(), fleet_nice) && all;
    std::fprintf(stderr, "the lab's threads at nice %d%s\n", fleet_nice,
                 all ? "" : " (some refused)");
  }
  int result = 0;
  {
    std::vector<std::string> tokens;
    (void)railyard::cluster::ReadTokenFile(railyard::load::LabViewerTokenFile(dir), &tokens);
    const std::string token = tokens.empty() ? std::string() : tokens.front();
    railyard::ui::MainWindow::Options window_options;
    window_options.use_keyring = false;
    window_options.audit_path = temporary.filePath("audit.sqlite");
    railyard::ui::MainWindow window(window_options);
    window.resize(1600, 1000);
    window.show();
    QString error;
    if (!window.OpenClusterFile(QString::fromStdString(railyard::load::LabClusterFile(dir)),
                                QString::fromStdString(token), &error)) {
      std::fprintf(stderr, "fleet_bench: %s\n", qPrintable(error));
      result = 1;
    }
    railyard::ui::ClusterState* state = window.State();
    railyard::ui::LiveSource* source = window.live_source();
    const int hosts = lab.host_size();
    // Every host answering, every replica's lag known.
    auto all_serving = [&] {
      if (state->NodeCount() != hosts) return false;
      for (int i = 0; i < hosts; ++i) {
        const railyard::ui::NodeView& n = state->Node(i);
        if (n.health != railyard::ui::NodeHealth::kServing || !n.telemetry) return false;
        const auto& r = n.telemetry->replication();
        if (r.role() == railyard::admin::DOCSTORE_REPLICA && !r.lag_known()) return false;
      }
      return true;
    };
    QElapsedTimer settle;
    settle.start();
    if (result == 0 && !WaitUntil(all_serving, 180000)) {
      int serving = 0, lag_unknown = 0;
      for (int i = 0; i < state->NodeCount(); ++i) {
        const railyard::ui::NodeView& n = state->Node(i);
        serving += n.health == railyard::ui::NodeHealth::kServing;
        lag_unknown += n.telemetry &&
                       n.telemetry->replication().role() == railyard::admin::DOCSTORE_REPLICA &&
                       !n.telemetry->replication().lag_known();
      }
      std::fprintf(stderr,
                   "fleet_bench: after %.0f s, %d of %d hosts serving and %d replicas' lag "
                   "unknown\n",
                   double(settle.elapsed()) / 1000.0, serving, hosts, lag_unknown);
      result = 1;
    }
    std::fprintf(stderr, "lab up in %.1f s; all %d hosts serving in the console %.1f s later\n",
                 up_s, hosts, double(settle.elapsed()) / 1000.0);

    // The console closed: what the fleet costs without its polling.
    if (result == 0) {
      source->Stop();
      const auto before = CpuByRole(lab);
      QElapsedTimer idle;
      idle.start();
      const double console_before = railyard::bench::SelfCpuSeconds();
      RunFor(static_cast<qint64>(idle_s * 1000));
      PrintCpu("console closed", before, CpuByRole(lab),
               railyard::bench::SelfCpuSeconds() - console_before, double(idle.elapsed()) / 1000.0);
      // Polling again: each node's silence is read from its flight recorder and put into its
      // series (LiveSource's gap fill), 144 reads at once. A burst that frames should not be
      // measured in: wait until a second passes without one.
      int gaps_filled = 0;
      QElapsedTimer since_gap;
      since_gap.start();
      const QMetaObject::Connection gap_filled =
          QObject::connect(source, &railyard::ui::LiveSource::GapFilled, [&] {
            ++gaps_filled;
            since_gap.restart();
          });
      QElapsedTimer reopened;
      reopened.start();
      source->Start();
      WaitUntil(all_serving, 60000);
      // Quiet: a second without a fill once one came, or 5 s with none (a silence too short to
      // leave a hole).
      const bool quiet = WaitUntil(
          [&] {
            return since_gap.elapsed() >= 1000 && (gaps_filled > 0 || reopened.elapsed() >= 5000);
          },
          30000);
      QObject::disconnect(gap_filled);
      std::fprintf(stderr,
                   "console polling again: %d nodes' silences filled in from their "
                   "recorders, %s after %.1f s\n",
                   gaps_filled, quiet ? "quiet" : "still filling (measured anyway)",
                   double(reopened.elapsed()) / 1000.0);
    }

    const qint64 period_ms = 100;  // LiveSource::Options' default poll_hz.
    std::atomic<int> stalls{0};
    QString current_tab;
    std::string stall_tab;  // The tab shown as the stall was seen (the watch's thread only).
    std::mutex tab_mutex;
    FleetContext fleet_context(lab);
    railyard::bench::StallWatch stall_watch(
        std::chrono::milliseconds(stall_ms), std::chrono::milliseconds(10),
        [&](const railyard::bench::StallWatch::Stall& stall) {
          ++stalls;
          std::printf("%s\n", railyard::bench::StallWatch::ToJson(stall, stall_tab).c_str());
          std::fflush(stdout);
        },
        [&](bool stall_begins) {
          if (stall_begins) {
            std::lock_guard lock(tab_mutex);
            stall_tab = current_tab.toStdString();
          }
          return fleet_context(stall_begins);
        });
    QObject progress_context;  // Goes before the watch: no frame reaches it after.
    QObject::connect(state, &railyard::ui::ClusterState::FrameApplied, &progress_context,
                     [&stall_watch] { stall_watch.Progress(); });
    std::vector<double> all_gaps, lag_docs, lag_s;
    const auto cpu_before = CpuByRole(lab);
    const double console_cpu_before = railyard::bench::SelfCpuSeconds();
    QElapsedTimer watched;
    watched.start();
    for (const QString& tab_name : QString::fromStdString(tabs_option).split(',')) {
      if (result != 0 || g_stop) break;
      const QString tab = tab_name.trimmed();
      {
        std::lock_guard lock(tab_mutex);
        current_tab = tab;
      }
      const int index = window.TabIndex(tab);
      if (index < 0) {
        std::fprintf(stderr, "fleet_bench: no tab %s\n", qPrintable(tab));
        result = 2;
        break;
      }
      window.Tabs()->setCurrentIndex(index);
      RunFor(1000);  // The switch's own repaint is not a frame's.
      std::vector<double> total, apply, paint, gaps;
      std::vector<const railyard::admin::Telemetry*> last(static_cast<size_t>(hosts), nullptr);
      std::vector<qint64> heard(static_cast<size_t>(hosts), 0);
      int skipped = 0;  // Passes that applied more than one frame (their cost is not split).
      QElapsedTimer clock;
      clock.start();
      while (clock.elapsed() < static_cast<qint64>(per_tab_s * 1000) && !g_stop) {
        const quint64 frames = source->FramesApplied();
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        const quint64 applied = source->FramesApplied() - frames;
        if (applied == 0) continue;
        QElapsedTimer repaint;
        repaint.start();
        // The repaint the frame asked for; QCustomPlot's queued replots post theirs from inside
        // the first pass (as console_frame_bench measures it).
        QCoreApplication::processEvents();
        QCoreApplication::processEvents();
        const double paint_ms = double(repaint.nsecsElapsed()) / 1e6;
        if (applied == 1) {
          const double apply_ms = double(source->LastApplyNs()) / 1e6;
          total.push_back(apply_ms + paint_ms);
          apply.push_back(apply_ms);
          paint.push_back(paint_ms);
        } else {
          ++skipped;
        }
        const qint64 now = clock.elapsed();
        for (int i = 0; i < hosts && i < state->NodeCount(); ++i) {
          const railyard::admin::Telemetry* t = state->Node(i).telemetry.get();
          if (t == last[static_cast<size_t>(i)]) continue;
          if (last[static_cast<size_t>(i)]) gaps.push_back(double(now - heard[size_t(i)]));
          last[static_cast<size_t>(i)] = t;
          heard[static_cast<size_t>(i)] = now;
          const auto& r = t->replication();
          if (r.role() == railyard::admin::DOCSTORE_REPLICA && r.lag_known()) {
            lag_docs.push_back(double(r.lag_docs()));
            lag_s.push_back(r.lag_seconds());
          }
        }
      }
      // A node not heard at all since its last answer counts as one gap up to now.
      for (int i = 0; i < hosts; ++i) {
        if (last[size_t(i)]) gaps.push_back(double(clock.elapsed() - heard[size_t(i)]));
      }
      const Distribution t = Summarize(total), a = Summarize(apply), p = Summarize(paint),
                         g = Summarize(gaps);
      const auto over = std::count_if(gaps.begin(), gaps.end(),
                                      [&](double ms) { return ms > 2.0 * double(period_ms); });
      std::printf(
          "{\"bench\":\"fleet_frame\",\"tab\":\"%s\",\"console_cpu\":%d,\"hosts\":%d,\"frames\":%"
          "zu,"
          "\"passes_with_several_frames\":%d,\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f,"
          "\"apply_p99_ms\":%.3f,\"paint_p99_ms\":%.3f,\"bar_p99_ms\":16,\"fleet_nice\":%d,"
          "\"meets_bar\":%s}\n",
          qPrintable(tab), g_console_cpu, hosts, total.size(), skipped, t.p50, t.p99, t.max, a.p99,
          p.p99, fleet_nice, t.p99 < 16.0 ? "true" : "false");
      std::printf(
          "{\"bench\":\"fleet_polling\",\"tab\":\"%s\",\"period_ms\":%lld,\"answers\":%zu,"
          "\"gap_p50_ms\":%.0f,\"gap_p99_ms\":%.0f,\"gap_max_ms\":%.0f,"
          "\"gaps_over_two_periods\":%lld,\"meets_bar\":%s}\n",
          qPrintable(tab), static_cast<long long>(period_ms), gaps.size(), g.p50, g.p99, g.max,
          static_cast<long long>(over), over == 0 ? "true" : "false");
      std::fflush(stdout);
      all_gaps.insert(all_gaps.end(), gaps.begin(), gaps.end());
      if (!screenshot_dir.empty()) {
        QDir().mkpath(QString::fromStdString(screenshot_dir));
        window.grab().save(QDir(QString::fromStdString(screenshot_dir))
                               .filePath("fleet_" + tab.toLower() + ".png"));
      }
    }
    if (result == 0 && !g_stop) {
      std::fprintf(stderr, "%d stalls over %d ms while the tabs were measured\n", stalls.load(),
                   stall_ms);
      PrintCpu("console polling", cpu_before, CpuByRole(lab),
               railyard::bench::SelfCpuSeconds() - console_cpu_before,
               double(watched.elapsed()) / 1000.0);
      const Distribution d = Summarize(lag_docs), s = Summarize(lag_s);
      std::printf(
          "{\"bench\":\"fleet_lag\",\"replicas\":%d,\"samples\":%zu,\"docs_p50\":%.0f,"
          "\"docs_p99\":%.0f,\"docs_max\":%.0f,\"seconds_p50\":%.3f,\"seconds_p99\":%.3f,"
          "\"seconds_max\":%.3f}\n",
          replicas, lag_docs.size(), d.p50, d.p99, d.max, s.p50, s.p99, s.max);
      std::map<std::string, std::vector<double>> rss, peak;
      for (const railyard::lab::Host& h : lab.host()) {
        const ProcSample p = ReadProc(h.pid());
        if (!p.ok) continue;
        rss[h.role()].push_back(p.rss_mib);
        peak[h.role()].push_back(p.peak_mib);
      }
      const ProcSample self = ReadProc(::getpid());
      rss["console"].push_back(self.rss_mib);
      peak["console"].push_back(self.peak_mib);
      for (const auto& [role, values] : rss) {
        double sum = 0;
        for (double v : values) sum += v;
        const Distribution r = Summarize(values), k = Summarize(peak[role]);
        std::printf(
            "{\"bench\":\"fleet_memory\",\"role\":\"%s\",\"processes\":%zu,\"rss_p50_mib\":%.1f,"
            "\"rss_max_mib\":%.1f,\"rss_sum_mib\":%.1f,\"peak_max_mib\":%.1f}\n",
            role.c_str(), values.size(), r.p50, r.max, sum, k.max);
      }
      std::fflush(stdout);
    }
  }
  if (!use_lab) {
    std::vector<std::string> removed;
    if (auto s = railyard::load::LabDown(dir, &removed); !s.ok()) {
      std::fprintf(stderr, "fleet_bench: %s (railyardctl lab down --dir %s)\n", s.message().c_str(),
                   dir.c_str());
      result = 1;
    }
  }
  if (g_stop) std::fprintf(stderr, "fleet_bench: stopped\n");
  return g_stop ? 1 : result;
}
