// railyard: the desktop console. Watches live clusters (or a recording), drains and compacts,
// records and replays. Without a display it runs offscreen, writing screenshots and a one-line
// summary each second, so `railyard --demo` is useful over ssh and in CI.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QIcon>
#include <QTabWidget>
#include <QTimer>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/node/config.h"
#include "core/node/demo_cluster.h"
#include "ui/shell/main_window.h"
#include "ui/sources/live_source.h"
#include "ui/sources/replay_source.h"

namespace {

std::atomic<bool> g_stop{false};

void OnSignal(int) { g_stop = true; }

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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"railyard: the Railyard desktop console"};
  app.set_version_flag("--version", std::string("railyard ") + RAILYARD_VERSION);
  bool demo = false;
  std::string cluster_file, token_file, recording, screenshot;
  std::vector<std::string> nodes;
  bool read_only = false;
  double quit_after_s = 0;
  double poll_hz = 10;
  std::string log_level = "warn";
  app.add_flag("--demo", demo,
               "Start a local 3-node cluster with load clients on loopback and watch it");
  app.add_option("--cluster", cluster_file, "Open a cluster file (railyard.config.Cluster)")
      ->check(CLI::ExistingFile);
  app.add_option("-n,--node", nodes, "Watch the node with this admin address (repeatable)");
  app.add_option("--token-file", token_file, "Admin token for every node (else $RAILYARD_TOKEN)")
      ->check(CLI::ExistingFile);
  app.add_option("--recording", recording, "Replay a recording instead of watching live")
      ->check(CLI::ExistingFile);
  app.add_flag("--read-only", read_only, "Disable every action, whatever the tokens");
  app.add_option("--screenshot", screenshot,
                 "Write screenshots of the window here (without a display: every 3 s; default "
                 "build/railyard-demo.png)");
  app.add_option("--quit-after-s", quit_after_s, "Quit after this long (0: run until closed)")
      ->check(CLI::Range(0.0, 604800.0));
  app.add_option("--poll-hz", poll_hz, "Telemetry polls per second per node")
      ->check(CLI::Range(0.1, 100.0))
      ->capture_default_str();
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  CLI11_PARSE(app, argc, argv);
  if (!recording.empty() && (demo || !cluster_file.empty() || !nodes.empty())) {
    std::fprintf(stderr,
                 "railyard: --recording replays a file; it cannot be combined with "
                 "--demo, --cluster or --node\n");
    return 2;
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt("railyard"));
  spdlog::set_level(spdlog::level::from_str(log_level));

  // No display: the offscreen platform, so the console still runs (and shows itself in files).
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
      qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  QApplication qapp(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Railyard"));
  QApplication::setApplicationName(QStringLiteral("railyard"));
  QApplication::setApplicationVersion(QStringLiteral(RAILYARD_VERSION));
  QApplication::setWindowIcon(
      QIcon::fromTheme(QStringLiteral("railyard"), QIcon(QStringLiteral(":/railyard.png"))));
  const bool headless = QGuiApplication::platformName() == QLatin1String("offscreen");
  if (screenshot.empty() && headless) screenshot = "build/railyard-demo.png";

  std::string token;
  if (const railyard::rpc::Status s = railyard::node::ResolveAdminToken({}, token_file, &token);
      !s.ok()) {
    std::fprintf(stderr, "railyard: %s\n", s.message().c_str());
    return 2;
  }

  railyard::node::DemoCluster cluster;
  if (demo) {
    railyard::node::DemoClusterOptions options;
    options.clients = 3;
    // The demo's own operator token, held in memory only: actions work on the demo cluster.
    token = RandomToken();
    options.operator_tokens = {token};
    if (railyard::rpc::Status s = cluster.Start(options); !s.ok()) {
      std::fprintf(stderr, "railyard --demo: %s\n", s.ToString().c_str());
      return 1;
    }
  }

  railyard::ui::MainWindow::Options options;
  options.read_only = read_only;
  options.poll_hz = poll_hz;
  // Tokens given on the command line (or made up by the demo) are for this session only.
  options.use_keyring = !demo && token_file.empty();
  railyard::ui::MainWindow window(options);
  const QString qtoken = QString::fromStdString(token);
  QString error;
  bool ok = true;
  if (demo) {
    for (size_t i = 0; i < cluster.nodes().size() && ok; ++i) {
      const railyard::rpc::Endpoint admin = cluster.nodes()[i]->admin_endpoint();
      ok = window.addNode(QString::fromStdString(admin.ToString()), qtoken, &error,
                          QStringLiteral("node%1").arg(i));
    }
  }
  if (ok && !cluster_file.empty()) {
    ok = window.openClusterFile(QString::fromStdString(cluster_file), qtoken, &error);
  }
  for (const std::string& n : nodes) {
    if (ok) ok = window.addNode(QString::fromStdString(n), qtoken, &error);
  }
  if (ok && !recording.empty()) {
    ok = window.openRecording(QString::fromStdString(recording), &error);
    if (ok) window.replaySource()->play();
  }
  if (!ok) {
    std::fprintf(stderr, "railyard: %s\n", qPrintable(error));
    return 2;
  }
  window.show();

  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  const QString shot = QString::fromStdString(screenshot);
  auto finish = [&] {
    if (!shot.isEmpty()) {
      if (WriteScreenshot(&window, shot)) {
        std::printf("screenshot: %s\n", qPrintable(shot));
      } else {
        std::fprintf(stderr, "railyard: cannot write %s\n", qPrintable(shot));
      }
    }
    std::fflush(stdout);
    QApplication::quit();
  };
  QTimer stop_poll;
  stop_poll.start(100);
  QObject::connect(&stop_poll, &QTimer::timeout, [&] {
    if (g_stop) finish();
  });
  if (quit_after_s > 0) {
    QTimer::singleShot(static_cast<int>(quit_after_s * 1000), &window, finish);
  }
  QTimer summary;
  QTimer shots;
  if (headless) {
    std::printf(
        "railyard: no display, running offscreen; screenshots every 3 s to %s; Ctrl-C "
        "to stop\n",
        screenshot.c_str());
    if (demo) {
      std::printf("demo operator token (this run only): %s\n", token.c_str());
      for (const auto& n : cluster.nodes()) {
        std::printf("node %s admin %s\n", n->Snapshot().node().c_str(),
                    n->admin_endpoint().ToString().c_str());
      }
    }
    std::fflush(stdout);
    summary.start(1000);
    QObject::connect(&summary, &QTimer::timeout, [&] {
      std::printf("%s  %s\n", qPrintable(QDateTime::currentDateTime().toString(Qt::ISODate)),
                  qPrintable(window.summaryLine()));
      std::fflush(stdout);
    });
  }
  if (!shot.isEmpty()) {  // Always set headless.
    shots.start(3000);
    QObject::connect(&shots, &QTimer::timeout, [&] { WriteScreenshot(&window, shot); });
  }

  const int rc = QApplication::exec();
  window.liveSource()->stop();
  if (demo) {
    const railyard::node::LoadReport report = cluster.Stop();
    std::printf("demo finished: %llu requests, %llu failed\n",
                static_cast<unsigned long long>(report.requests),
                static_cast<unsigned long long>(report.errors + report.rejections));
  }
  return rc;
}
