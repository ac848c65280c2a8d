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

#include "tests/support/free_port.h"
#include "tests/support/http_get.h"

namespace railyard::testing {

class PrometheusProcess {
 public:
  PrometheusProcess() = default;
  ~PrometheusProcess() { Stop(); }
  PrometheusProcess(const PrometheusProcess&) = delete;
  PrometheusProcess& operator=(const PrometheusProcess&) = delete;

  // Writes dir/prometheus.yml (one job `job` scraping `targets` every `scrape_interval`, plus
  // `extra_config`, appended as is) and starts Prometheus on a free port. False with `error` if
  // the binary is missing or did not start.
  bool Start(const QString& dir, const QStringList& targets, QString* error,
             const QString& job = QStringLiteral("railyard"),
             const QString& scrape_interval = QStringLiteral("1s"),
             const QString& extra_config = {}) {
    port_ = FreePort();
    QFile config(QDir(dir).filePath("prometheus.yml"));
    if (!config.open(QIODevice::WriteOnly)) {
      *error = "cannot write " + config.fileName();
      return false;
    }
    QStringList quoted;
    for (const QString& t : targets) quoted << "'" + t + "'";
    config.write(QStringLiteral("global:\n"
                                "  scrape_interval: %1\n"
                                "  evaluation_interval: %1\n"
                                "scrape_configs:\n"
                                "  - job_name: %2\n"
                                "    static_configs:\n"
                                "      - targets: [%3]\n")
                     .arg(scrape_interval, job, quoted.join(", "))
                     .toUtf8() +
                 extra_config.toUtf8());
    config.close();
    process_.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    process_.start(
        "prometheus",
        {"--config.file=" + config.fileName(), "--storage.tsdb.path=" + QDir(dir).filePath("tsdb"),
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

  // An instant query's single value now; NaN (which no comparison accepts) unless it answered
  // exactly one sample.
  double Value(const QString& promql) const {
    const HttpAnswer answer = HttpGet(
        "127.0.0.1", port_, "/api/v1/query?query=" + QUrl::toPercentEncoding(promql).toStdString());
    if (answer.status != 200) return std::nan("");
    const QJsonArray result = QJsonDocument::fromJson(QByteArray::fromStdString(answer.body))
                                  .object()["data"]
                                  .toObject()["result"]
                                  .toArray();
    if (result.size() != 1) return std::nan("");
    return result[0].toObject()["value"].toArray()[1].toString().toDouble();
  }

  uint16_t port() const { return port_; }
  QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(port_); }

 private:
  QProcess process_;
  uint16_t port_ = 0;
};

}  // namespace railyard::testing
