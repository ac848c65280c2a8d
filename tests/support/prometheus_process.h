// SPDX-License-Identifier: Apache-2.0
#pragma once

// A real Prometheus (Debian's binary) for tests: its own config and TSDB in a folder of the
// test's, on a loopback port, stopped by its PID (SIGTERM, then SIGKILL) when destroyed.
// Header-only; needs Qt Core and railyard_asio (free_port.h).

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QUrl>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>

#include "tests/support/free_port.h"
#include "tests/support/http_get.h"

namespace railyard::testing {

// What the test's Prometheus scrapes: one job.
struct PrometheusConfig {
  QStringList targets;  // host:port of /metrics listeners.
  QString job = QStringLiteral("railyard");
  QString scrape_interval = QStringLiteral("1s");  // Also the rules' evaluation interval.
  QString job_lines;  // More of the job, each line indented four spaces ("    authorization:").
  QString top_lines;  // More top-level YAML ("rule_files: [...]").
};

class PrometheusProcess {
 public:
  PrometheusProcess() = default;
  ~PrometheusProcess() { Stop(); }
  PrometheusProcess(const PrometheusProcess&) = delete;
  PrometheusProcess& operator=(const PrometheusProcess&) = delete;

  // Writes dir/prometheus.yml from `config` and starts Prometheus on a free port. False with
  // `error` if the binary is missing or did not start.
  bool Start(const QString& dir, const PrometheusConfig& config, QString* error) {
    port_ = FreePort();
    QFile file(QDir(dir).filePath("prometheus.yml"));
    if (!file.open(QIODevice::WriteOnly)) {
      *error = "cannot write " + file.fileName();
      return false;
    }
    QStringList quoted;
    for (const QString& t : config.targets) quoted << "'" + t + "'";
    file.write(QStringLiteral("global:\n"
                              "  scrape_interval: %1\n"
                              "  evaluation_interval: %1\n"
                              "%2"
                              "scrape_configs:\n"
                              "  - job_name: %3\n"
                              "%4"
                              "    static_configs:\n"
                              "      - targets: [%5]\n")
                   .arg(config.scrape_interval, config.top_lines, config.job, config.job_lines,
                        quoted.join(", "))
                   .toUtf8());
    file.close();
    process_.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    process_.start(
        "prometheus",
        {"--config.file=" + file.fileName(), "--storage.tsdb.path=" + QDir(dir).filePath("tsdb"),
         QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(port_), "--log.level=warn"});
    if (!process_.waitForStarted(10000)) {
      *error = "prometheus did not start (Debian package: prometheus)";
      return false;
    }
    return true;
  }

  void Stop() {
    if (process_.state() == QProcess::NotRunning) return;
    process_.terminate();  // SIGTERM to its PID.
    if (!process_.waitForFinished(20000)) {
      process_.kill();
      process_.waitForFinished(5000);
    }
  }

  // An instant query's single sample now, [Unix seconds, value]; nullopt unless it answered
  // exactly one.
  std::optional<std::pair<double, double>> Sample(const QString& promql) const {
    const HttpAnswer answer = HttpGet(
        "127.0.0.1", port_, "/api/v1/query?query=" + QUrl::toPercentEncoding(promql).toStdString());
    if (answer.status != 200) return std::nullopt;
    const QJsonArray result = QJsonDocument::fromJson(QByteArray::fromStdString(answer.body))
                                  .object()["data"]
                                  .toObject()["result"]
                                  .toArray();
    if (result.size() != 1) return std::nullopt;
    const QJsonArray value = result[0].toObject()["value"].toArray();
    return std::pair{value[0].toDouble(), value[1].toString().toDouble()};
  }
  // Its value; NaN (which no comparison accepts) if there is none.
  double Value(const QString& promql) const {
    const auto sample = Sample(promql);
    return sample ? sample->second : std::nan("");
  }

  uint16_t port() const { return port_; }
  QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(port_); }

 private:
  QProcess process_;
  uint16_t port_ = 0;
};

}  // namespace railyard::testing
