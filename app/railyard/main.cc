// SPDX-License-Identifier: Apache-2.0
// railyard: the desktop console. Watches live clusters (or a recording), drains and compacts,
// records and replays. Without a display it runs offscreen, writing screenshots and a one-line
// summary each second, so `railyard --demo` is useful over ssh and in CI. Every usage or launch
// error exits with 2; where there is a display it is shown in a dialog as well as on stderr.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QIcon>
#include <QMessageBox>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTimer>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "app/prometheus_flags.h"
#include "core/base/allocator.h"
#include "core/cluster/access.h"
#include "core/cluster/alert_rules.h"
#include "core/cluster/prometheus_recording.h"
#include "core/cluster/time_span.h"
#include "core/load/demo_cluster.h"
#include "core/node/client_telemetry.h"
#include "ui/compare/compare_window.h"
#include "ui/session/plain_reason.h"
#include "ui/shell/launch_error.h"
#include "ui/shell/main_window.h"
#include "ui/shell/view_link.h"
#include "ui/sources/live_source.h"
#include "ui/sources/prometheus_range.h"
#include "ui/sources/replay_source.h"
#include "ui/views/throughput_view.h"

namespace {

namespace cluster = railyard::cluster;
namespace load = railyard::load;
namespace ui = railyard::ui;

std::atomic<bool> g_stop{false};

void OnSignal(int) { g_stop = true; }

struct ConsoleFlags {
  bool demo = false;
  std::string cluster_file, token_file, recording, screenshot, window_size, alert_rules;
  std::string recording_argument;  // `railyard FILE`: what a file manager's double-click runs.
  std::vector<std::string> nodes, compare;
  cluster::TlsFlags tls;
  bool read_only = false;
  double quit_after_s = 0;
  double poll_hz = 10;
  std::string log_level = "warn";
  cluster::PrometheusSourceSpec prometheus;  // Set: open that range, as a recording.
  std::string tab, window, at, from, to;     // ui/shell/view_link.h's arguments.
};

void AddFlags(CLI::App& app, ConsoleFlags& f) {
  app.add_flag("--demo", f.demo,
               "Start a local 3-node cluster with load clients on loopback and watch it");
  app.add_option("--cluster", f.cluster_file, "Open a cluster file (railyard.config.Cluster)")
      ->check(CLI::ExistingFile);
  app.add_option("-n,--node", f.nodes, "Watch the node with this admin address (repeatable)");
  app.add_option("--token-file", f.token_file, "Admin token for every node (else $RAILYARD_TOKEN)")
      ->check(CLI::ExistingFile);
  app.add_flag("--tls", f.tls.on,
               "Reach admin services over TLS (the system's CAs unless --tls-ca); a cluster "
               "file's admin_tls block turns it on too");
  app.add_option("--tls-ca", f.tls.ca_file, "CA file the admin certificates chain to (PEM)")
      ->check(CLI::ExistingFile);
  app.add_option("--tls-cert", f.tls.cert_file, "Client certificate for mutual TLS (PEM)")
      ->check(CLI::ExistingFile);
  app.add_option("--tls-key", f.tls.key_file, "Key of --tls-cert (PEM)")->check(CLI::ExistingFile);
  app.add_option("--tls-server-name", f.tls.server_name,
                 "Name the admin certificates must carry (default: the node's host)");
  app.add_option("--recording", f.recording, "Replay a recording instead of watching live")
      ->check(CLI::ExistingFile);
  app.add_option("recording", f.recording_argument, "A recording to replay, as --recording")
      ->check(CLI::ExistingFile)
      ->excludes("--recording");
  cluster::PrometheusSourceSpec& p = f.prometheus;
  app.add_option(
         "--prometheus", p.url,
         "Open a time range of the cluster from this Prometheus server (http(s)://host:port; "
         "Thanos, Mimir, VictoriaMetrics too): --since (default 1h) up to --until, replayed "
         "like a recording and kept in ~/.cache/railyard/prometheus")
      ->excludes("--demo", "--cluster", "--node", "--recording", "recording");
  app.add_option("--since", p.since, "With --prometheus: the range's length (15m, 1h, 6h, 2d)")
      ->capture_default_str();
  railyard::app::AddPrometheusRangeFlags(app, p);
  app.add_option("--tab", f.tab,
                 "Open on this tab: overview, slots, flow, compaction, bloom, throughput, "
                 "replication, alerts, incidents, audit");
  app.add_option("--window", f.window,
                 "The charts' window (Throughput, Replication lag): 1m, 5m, 15m, 1h, 6h, 24h");
  app.add_option("--at", f.at,
                 "Replaying (a recording or --prometheus): start paused at this UTC time "
                 "(2026-11-29T03:10:00Z) or a span ago (30m)");
  app.add_option("--from", f.from,
                 "Hold the charts on a time range from this UTC time (2026-11-29T03:10:00Z) or "
                 "span ago (2h) up to --to (default now), as a drag on a chart does");
  app.add_option("--to", f.to, "With --from: the range's end, a UTC time or a span ago")
      ->needs("--from");
  app.add_flag("--read-only", f.read_only, "Disable every action, whatever the tokens");
  app.add_option("--alert-rules", f.alert_rules,
                 "Alert rules (railyard.alerts.Rules; default: ~/.config/railyard/alerts.textproto "
                 "if there, else the built-in ones)")
      ->check(CLI::ExistingFile);
  app.add_option("--screenshot", f.screenshot,
                 "Write screenshots of the window here (without a display: every 3 s; default "
                 "build/railyard-demo.png)");
  app.add_option("--window-size", f.window_size,
                 "Window size WxH in pixels, e.g. 1024x700 (over the remembered layout)");
  app.add_option("--quit-after-s", f.quit_after_s, "Quit after this long (0: run until closed)")
      ->check(CLI::Range(0.0, 604800.0));
  app.add_option("--poll-hz", f.poll_hz, "Telemetry polls per second per node")
      ->check(CLI::Range(0.1, 100.0))
      ->capture_default_str();
  app.add_option("--log-level", f.log_level, "trace, debug, info, warn, error or off")
      ->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  app.add_option("--compare", f.compare,
                 "Compare two recordings side by side on one time axis (opens only that window)")
      ->expected(2)
      ->excludes("--demo", "--cluster", "--node", "--recording", "recording");
}

constexpr int kUsageError = 2;  // Every usage or launch error (docs/guide.md: exit codes).

// Says why the console cannot start: always on stderr, and in a dialog where a person may be
// looking (a display, and no --screenshot run).
int LaunchFailed(const QString& reason, bool dialog) {
  std::fprintf(stderr, "railyard: %s\n", qPrintable(reason));
  if (dialog) ui::CreateLaunchErrorBox(reason)->exec();
  return kUsageError;
}

// "1024x700" -> its size; an invalid size otherwise.
QSize ParseWindowSize(const std::string& text) {
  static const QRegularExpression kSize(QStringLiteral("^(\\d{3,5})x(\\d{3,5})$"));
  const QRegularExpressionMatch m = kSize.match(QString::fromStdString(text));
  return m.hasMatch() ? QSize(m.captured(1).toInt(), m.captured(2).toInt()) : QSize();
}

std::string RandomToken() {
  std::random_device random;
  std::string token;
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 32; ++i) token += kHex[random() % 16];
  return token;
}

bool WriteScreenshot(QWidget* window, const QString& path) {
  const QFileInfo info(path);
  QDir().mkpath(info.absolutePath());
  return window->grab().save(path);
}

void SetUpApplication() {
  QApplication::setOrganizationName(QStringLiteral("Railyard"));
  QApplication::setApplicationName(QStringLiteral("railyard"));
  QApplication::setApplicationVersion(QStringLiteral(RAILYARD_VERSION));
  QApplication::setWindowIcon(
      QIcon::fromTheme(QStringLiteral("railyard"), QIcon(QStringLiteral(":/railyard.png"))));
}

// Points the window at what the flags name: the demo's nodes, a cluster file, nodes, or a
// recording. False with the problem in `error`.
// The demo's clients' own telemetry services, one per client; stopped before the clients they read.
using ClientAdmins = std::vector<std::unique_ptr<railyard::node::AdminService>>;

// Adds the demo's clients as client rows with their own figures.
bool AddDemoClients(const load::DemoCluster& demo, const ClientAdmins& client_admins,
                    const QString& token, ui::MainWindow& window, QString* error) {
  for (size_t i = 0; i < client_admins.size(); ++i) {
    if (!window.AddNode(QString::fromStdString(client_admins[i]->endpoint().ToString()), token,
                        error, QString::fromStdString(demo.clients()[i]->client_name()))) {
      return false;
    }
  }
  return true;
}

bool OpenSources(const ConsoleFlags& f, const load::DemoCluster& demo,
                 const ClientAdmins& client_admins, const QString& token, ui::MainWindow& window,
                 QString* error) {
  bool ok = true;
  for (const load::DemoNode& n : demo.nodes()) {
    if (ok) {
      ok = window.AddNode(QString::fromStdString(n.admin.ToString()), token, error,
                          QString::fromStdString(n.name));
    }
  }
  if (ok) ok = AddDemoClients(demo, client_admins, token, window, error);
  if (ok && !f.cluster_file.empty()) {
    ok = window.OpenClusterFile(QString::fromStdString(f.cluster_file), token, error);
  }
  for (const std::string& n : f.nodes) {
    if (ok) ok = window.AddNode(QString::fromStdString(n), token, error);
  }
  if (ok && !f.recording.empty()) {
    ok = window.OpenRecording(QString::fromStdString(f.recording), error);
    // A range from Prometheus opens at its end, paused, with the charts' window of history
    // before it (as a dashboard shows a range); a recording plays from its start.
    int64_t span_ms = 0;
    if (ok && !f.prometheus.url.empty() && cluster::ParseTimeSpan(f.prometheus.since, &span_ms)) {
      window.ShowWholeRange(span_ms);
    }
    if (ok && !f.at.empty()) {
      int64_t at_ms = 0;
      if (!cluster::ParseTimePoint(f.at, cluster::UnixMsNow(), &at_ms)) {
        *error = QString::fromStdString("--at " + f.at +
                                        ": a UTC time (2026-11-29T03:10:00Z) or a span ago (30m)");
        return false;
      }
      window.replay_source()->Seek(at_ms);
    } else if (ok && !f.prometheus.url.empty()) {
      window.replay_source()->Seek(window.replay_source()->EndMs());
    } else if (ok) {
      window.replay_source()->Play();
    }
  }
  if (ok && !f.window.empty()) {
    const int minutes = ui::WindowMinutes(QString::fromStdString(f.window));
    if (minutes == 0) {
      *error = QString::fromStdString("--window " + f.window + ": 1m, 5m, 15m, 1h, 6h or 24h");
      return false;
    }
    window.SetWindowMinutes(minutes);
  }
  if (ok && !f.from.empty()) {
    const int64_t now_ms = cluster::UnixMsNow();
    int64_t from_ms = 0, to_ms = now_ms;
    for (const auto& [flag, text, ms] :
         {std::tuple{"--from", &f.from, &from_ms}, std::tuple{"--to", &f.to, &to_ms}}) {
      if (!text->empty() && !cluster::ParseTimePoint(*text, now_ms, ms)) {
        *error = QString::fromStdString(std::string(flag) + " " + *text +
                                        ": a UTC time (2026-11-29T03:10:00Z) or a span ago (2h)");
        return false;
      }
    }
    if (to_ms <= from_ms) {
      *error = QString::fromStdString("--from " + f.from + " is not before --to " +
                                      (f.to.empty() ? std::string("now") : f.to));
      return false;
    }
    window.ShowRange(from_ms, to_ms);
  } else if (ok && !f.demo && f.recording.empty() && f.prometheus.url.empty()) {
    // Live on nodes that were there before (a demo's are new each time): where the charts were
    // held when the console last closed.
    window.ShowSavedRange();
  }
  if (ok && !f.tab.empty()) {
    const int tab = ui::TabIndex(window.Tabs(), QString::fromStdString(f.tab));
    if (tab < 0) {
      *error = QString::fromStdString("--tab " + f.tab + ": one of ") +
               ui::TabKeys(window.Tabs()).join(QStringLiteral(", "));
      return false;
    }
    window.Tabs()->setCurrentIndex(tab);
  }
  return ok;
}

// Without a display: where the screenshots go, the demo's token and nodes, then a summary line
// every second.
void StartHeadlessReports(const ConsoleFlags& f, const load::DemoCluster& demo,
                          const std::string& token, ui::MainWindow& window, QTimer& summary) {
  std::printf(
      "railyard: no display, running offscreen; screenshots every 3 s to %s; Ctrl-C "
      "to stop\n",
      f.screenshot.c_str());
  if (f.demo) {
    std::printf("demo operator token (this run only): %s\n", token.c_str());
    for (const load::DemoNode& n : demo.nodes()) {
      std::printf("node %s (%s) admin %s\n", n.name.c_str(), n.role.c_str(),
                  n.admin.ToString().c_str());
    }
  }
  std::fflush(stdout);
  summary.start(1000);
  QObject::connect(&summary, &QTimer::timeout, [&window] {
    std::printf("%s  %s\n", qPrintable(QDateTime::currentDateTime().toString(Qt::ISODate)),
                qPrintable(window.SummaryLine()));
    std::fflush(stdout);
  });
}

// Runs the event loop until the window closes, a signal, or --quit-after-s; the last screenshot
// is written on the way out.
int RunUntilDone(const ConsoleFlags& f, const load::DemoCluster& demo, const std::string& token,
                 bool headless, ui::MainWindow& window) {
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  const QString shot = QString::fromStdString(f.screenshot);
  auto finish = [&] {
    if (!shot.isEmpty()) {
      if (WriteScreenshot(&window, shot)) {
        std::printf("screenshot: %s\n", qPrintable(shot));
      } else {
        std::fprintf(stderr, "railyard: cannot write %s\n", qPrintable(shot));
      }
    }
    // What opens this view again, as View > Copy command line gives it (headless, no clipboard).
    if (headless) std::printf("view: %s\n", qPrintable(window.ViewCommandLineText()));
    std::fflush(stdout);
    QApplication::quit();
  };
  QTimer stop_poll;
  stop_poll.start(100);
  QObject::connect(&stop_poll, &QTimer::timeout, [&] {
    if (g_stop) finish();
  });
  if (f.quit_after_s > 0) {
    QTimer::singleShot(static_cast<int>(f.quit_after_s * 1000), &window, finish);
  }
  QTimer summary;
  QTimer shots;
  if (headless) StartHeadlessReports(f, demo, token, window, summary);
  if (!shot.isEmpty()) {  // Always set headless.
    shots.start(3000);
    QObject::connect(&shots, &QTimer::timeout, [&] { WriteScreenshot(&window, shot); });
  }
  return QApplication::exec();
}

// Starts the demo cluster with its own operator token, and its clients' telemetry services, and
// tells the window where they are.
bool StartDemo(load::DemoCluster& demo, ClientAdmins* client_admins, std::string* token,
               ui::MainWindow& window, QString* error) {
  load::DemoClusterOptions options;
  options.clients = 3;
  // The demo's own operator token, held in memory only: actions work on the demo cluster.
  *token = RandomToken();
  options.operator_tokens = {*token};
  if (railyard::rpc::Status s = demo.Start(options); !s.ok()) {
    if (error) *error = QString::fromStdString(s.ToString());
    return false;
  }
  std::vector<railyard::node::ClientEndpoint> endpoints;
  for (const auto& client : demo.clients()) {
    endpoints.push_back({client->client_name(), &client->client(), client->write_client()});
  }
  railyard::node::AdminOptions client_admin;
  client_admin.operator_tokens = options.operator_tokens;
  if (railyard::rpc::Status s =
          railyard::node::StartClientAdminServices(client_admin, endpoints, client_admins);
      !s.ok()) {
    if (error) *error = QString::fromStdString(s.ToString());
    demo.Stop();
    return false;
  }
  ui::DemoInfo info;
  info.token = QString::fromStdString(*token);
  info.cluster_file = QString::fromStdString(demo.ClusterFile());
  info.data_token_file = QString::fromStdString(demo.DataTokenFile());
  for (const load::DemoNode& n : demo.nodes()) {
    info.nodes.push_back({QString::fromStdString(n.name), QString::fromStdString(n.role),
                          QString::fromStdString(n.admin.ToString())});
  }
  window.SetDemoInfo(info);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"railyard: the Railyard desktop console"};
  // The allocator too: it changes the console's frame times by about half (CMakeLists.txt).
  app.set_version_flag("--version", std::string("railyard ") + RAILYARD_VERSION +
                                        "\nmalloc: " + railyard::base::AllocatorDescription());
  ConsoleFlags f;
  AddFlags(app, f);
  QString usage_error;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version.
    usage_error =
        QString::fromStdString(e.what()) + QStringLiteral(" (railyard --help lists the flags)");
  }
  if (!f.recording_argument.empty()) f.recording = f.recording_argument;
  if (usage_error.isEmpty() && !f.recording.empty() &&
      (f.demo || !f.cluster_file.empty() || !f.nodes.empty())) {
    usage_error = QStringLiteral(
        "--recording replays a file; it cannot be combined with --demo, --cluster or --node");
  }
  const QSize window_size = ParseWindowSize(f.window_size);
  if (usage_error.isEmpty() && !f.window_size.empty() && !window_size.isValid()) {
    usage_error = QStringLiteral("--window-size wants WxH in pixels, such as 1024x700");
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt("railyard"));
  spdlog::set_level(spdlog::level::from_str(f.log_level));

  // No display: the offscreen platform, so the console still runs (and shows itself in files).
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
      qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  QApplication qapp(argc, argv);
  SetUpApplication();
  const bool headless = QGuiApplication::platformName() == QLatin1String("offscreen");
  // A dialog only where a person may be looking: a display, and not a screenshot run.
  const bool dialogs = !headless && f.screenshot.empty();
  if (!usage_error.isEmpty()) return LaunchFailed(usage_error, dialogs);
  if (f.screenshot.empty() && headless) f.screenshot = "build/railyard-demo.png";
  if (!f.compare.empty()) {
    // Problems with the files show in the window; without a display, on stderr and in the
    // screenshot written once both are loaded.
    ui::CompareWindow window;
    QObject::connect(&window, &ui::CompareWindow::LoadFinished, [&] {
      const QString errors = window.ErrorText();
      if (!errors.isEmpty()) std::fprintf(stderr, "railyard: %s\n", qPrintable(errors));
      if (!f.screenshot.empty()) WriteScreenshot(&window, QString::fromStdString(f.screenshot));
      if (headless) QApplication::exit(errors.isEmpty() ? 0 : 1);
    });
    window.show();
    window.Open(QString::fromStdString(f.compare[0]), QString::fromStdString(f.compare[1]));
    if (f.quit_after_s > 0) QTimer::singleShot(int(f.quit_after_s * 1000), &QApplication::quit);
    return QApplication::exec();
  }

  std::string token;
  if (const railyard::rpc::Status s = cluster::ResolveAdminToken({}, f.token_file, &token);
      !s.ok()) {
    return LaunchFailed(ui::PlainReason(QString::fromStdString(s.ToString())), dialogs);
  }
  // The alert rules: --alert-rules, else the user's own file, else the built-in ones. A file
  // with a mistake stops the launch: alerts that silently fall back are not the ones asked for.
  std::optional<railyard::alerts::Rules> alert_rules;
  QString alert_rules_path = QString::fromStdString(f.alert_rules);
  if (alert_rules_path.isEmpty()) {
    const QString own = QStandardPaths::writableLocation(QStandardPaths::ConfigLocation) +
                        "/railyard/alerts.textproto";
    if (QFileInfo::exists(own)) alert_rules_path = own;
  }
  if (!alert_rules_path.isEmpty()) {
    alert_rules.emplace();
    if (const railyard::rpc::Status s =
            cluster::LoadAlertRules(alert_rules_path.toStdString(), &*alert_rules);
        !s.ok()) {
      return LaunchFailed(QString::fromStdString(s.message()), dialogs);
    }
  }
  // --prometheus: the range, fetched before the window opens (each query within its timeout).
  ui::PrometheusRange prometheus_range;
  if (!f.prometheus.url.empty()) {
    QString error;
    std::fprintf(stderr, "railyard: reading the %s up to %s from %s\n", f.prometheus.since.c_str(),
                 f.prometheus.until.c_str(), f.prometheus.url.c_str());
    if (!ui::FetchPrometheusRange(f.prometheus, &prometheus_range, &error)) {
      return LaunchFailed(error, dialogs);
    }
    std::fprintf(stderr, "railyard: %llu snapshots of %zu nodes, kept in %s\n",
                 static_cast<unsigned long long>(prometheus_range.snapshots),
                 prometheus_range.nodes, qPrintable(prometheus_range.recording));
    f.recording = prometheus_range.recording.toStdString();
  }
  load::DemoCluster demo;
  ClientAdmins client_admins;  // Declared after the demo: stopped before its clients.
  bool demo_started = false;
  ui::MainWindow* window_ptr = nullptr;  // For the start page's Demo button.

  ui::MainWindow::Options options;
  options.read_only = f.read_only;
  options.poll_hz = f.poll_hz;
  options.tls = f.tls;
  options.alert_rules = alert_rules;
  options.alert_rules_source = alert_rules_path;
  options.source_arguments = prometheus_range.arguments;
  options.source_recording = prometheus_range.recording;
  options.remember_layout = true;
  options.remember_recent = true;
  options.show_start_page = true;
  options.start_demo = [&](QString* error) {
    if (demo_started) return true;
    std::string demo_token;
    if (!StartDemo(demo, &client_admins, &demo_token, *window_ptr, error)) return false;
    demo_started = true;
    for (const load::DemoNode& n : demo.nodes()) {
      if (!window_ptr->AddNode(QString::fromStdString(n.admin.ToString()),
                               QString::fromStdString(demo_token), error,
                               QString::fromStdString(n.name))) {
        return false;
      }
    }
    return AddDemoClients(demo, client_admins, QString::fromStdString(demo_token), *window_ptr,
                          error);
  };
  options.restart_demo_node = [&](const QString& admin_address, QString* error) {
    const railyard::rpc::Status s = demo.RestartNodeAt(admin_address.toStdString());
    if (!s.ok() && error) *error = QString::fromStdString(s.message());
    return s.ok();
  };
  // A demo node killed by hand is reaped within a second, not left <defunct> until the end.
  QTimer reaper;
  QObject::connect(&reaper, &QTimer::timeout, [&] {
    for (size_t i = 0; i < demo.nodes().size(); ++i) demo.NodeRunning(i);
  });
  reaper.start(1000);
  // Tokens given on the command line (or made up by the demo) are for this session only.
  options.use_keyring = !f.demo && f.token_file.empty();
  ui::MainWindow window(options);
  window_ptr = &window;
  if (f.demo) {
    QString error;
    if (!StartDemo(demo, &client_admins, &token, window, &error)) {
      return LaunchFailed(QStringLiteral("the demo did not start: %1").arg(error), dialogs);
    }
    demo_started = true;
  }
  QString error;
  if (!OpenSources(f, demo, client_admins, QString::fromStdString(token), window, &error)) {
    return LaunchFailed(error, dialogs);
  }
  if (window_size.isValid()) window.resize(window_size);
  window.show();
  const int rc = RunUntilDone(f, demo, token, headless, window);
  window.live_source()->Stop();
  for (auto& service : client_admins) service->Stop();
  if (demo_started) {
    const load::LoadResult report = demo.Stop();
    std::printf("demo finished: %llu requests, %llu failed\n",
                static_cast<unsigned long long>(report.requests),
                static_cast<unsigned long long>(report.errors + report.rejections));
  }
  return rc;
}
