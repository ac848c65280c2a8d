// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/prometheus_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

#include "core/cluster/time_span.h"

namespace railyard::ui {

namespace {

constexpr char kUrlKey[] = "prometheus/url";
constexpr char kMatchKey[] = "prometheus/match";
constexpr char kTokenFileKey[] = "prometheus/token_file";
constexpr char kCaFileKey[] = "prometheus/ca_file";

}  // namespace

PrometheusDialog::PrometheusDialog(bool remember, QWidget* parent)
    : QDialog(parent), remember_(remember) {
  setWindowTitle(tr("Open Prometheus range"));
  setMinimumWidth(fontMetrics().horizontalAdvance(QLatin1Char('x')) * 64);
  url_ = new QLineEdit(this);
  url_->setPlaceholderText(QStringLiteral("http://prometheus:9090"));
  since_ = new QComboBox(this);
  since_->setEditable(true);
  since_->addItems({QStringLiteral("15m"), QStringLiteral("1h"), QStringLiteral("6h"),
                    QStringLiteral("24h"), QStringLiteral("2d"), QStringLiteral("7d")});
  since_->setCurrentText(QStringLiteral("1h"));
  until_ = new QLineEdit(QStringLiteral("now"), this);
  until_->setToolTip(tr("now, a span ago (30m) or a UTC time (2026-11-29T03:10:00Z)"));
  match_ = new QLineEdit(this);
  match_->setPlaceholderText(QStringLiteral("job=\"railyard\""));
  match_->setToolTip(
      tr("Label matchers every query gets; empty: every target whose /metrics "
         "has railyard_node_info"));
  token_file_ = new QLineEdit(this);
  token_file_->setPlaceholderText(tr("none"));
  token_file_->setToolTip(tr("A file whose first line is a bearer token"));
  ca_file_ = new QLineEdit(this);
  ca_file_->setPlaceholderText(tr("the system's"));
  problem_ = new QLabel(this);
  problem_->setWordWrap(true);
  problem_->setObjectName(QStringLiteral("prometheusProblem"));

  auto* form = new QFormLayout;
  form->addRow(tr("Server URL:"), url_);
  form->addRow(tr("Last:"), since_);
  form->addRow(tr("Up to:"), until_);
  form->addRow(tr("Matching:"), match_);
  form->addRow(tr("Token file:"), token_file_);
  form->addRow(tr("CA file (https):"), ca_file_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("The figures the nodes' /metrics carry, per node, from any server "
                              "with Prometheus's HTTP API (Thanos, Mimir, VictoriaMetrics too), "
                              "replayed like a recording."),
                           this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  layout->addLayout(form);
  layout->addWidget(problem_);
  layout->addWidget(buttons);
  // A problem once shown follows the fields as they are corrected.
  const auto recheck = [this] {
    if (!problem_->text().isEmpty()) problem_->setText(Problem());
  };
  for (QLineEdit* field : {url_, until_, match_, token_file_, ca_file_}) {
    connect(field, &QLineEdit::textChanged, this, recheck);
  }
  connect(since_, &QComboBox::currentTextChanged, this, recheck);
  if (remember_) {
    const QSettings settings;
    url_->setText(settings.value(QLatin1String(kUrlKey)).toString());
    match_->setText(settings.value(QLatin1String(kMatchKey)).toString());
    token_file_->setText(settings.value(QLatin1String(kTokenFileKey)).toString());
    ca_file_->setText(settings.value(QLatin1String(kCaFileKey)).toString());
  }
}

cluster::PrometheusSourceSpec PrometheusDialog::Spec() const {
  cluster::PrometheusSourceSpec spec;
  spec.url = url_->text().trimmed().toStdString();
  spec.since = since_->currentText().trimmed().toStdString();
  spec.until = until_->text().trimmed().toStdString();
  spec.match = match_->text().trimmed().toStdString();
  spec.token_file = token_file_->text().trimmed().toStdString();
  spec.ca_file = ca_file_->text().trimmed().toStdString();
  return spec;
}

void PrometheusDialog::SetSpec(const cluster::PrometheusSourceSpec& spec) {
  url_->setText(QString::fromStdString(spec.url));
  since_->setCurrentText(QString::fromStdString(spec.since));
  until_->setText(QString::fromStdString(spec.until));
  match_->setText(QString::fromStdString(spec.match));
  token_file_->setText(QString::fromStdString(spec.token_file));
  ca_file_->setText(QString::fromStdString(spec.ca_file));
}

QString PrometheusDialog::Problem() const {
  cluster::PrometheusServer server;
  cluster::PrometheusHistoryOptions range;
  const base::Status s =
      cluster::ResolvePrometheusSource(Spec(), cluster::UnixMsNow(), &server, &range);
  return s.ok() ? QString() : QString::fromStdString(s.message());
}

void PrometheusDialog::accept() {
  const QString problem = Problem();
  problem_->setText(problem);
  if (!problem.isEmpty()) return;
  if (remember_) {
    QSettings settings;
    settings.setValue(QLatin1String(kUrlKey), url_->text().trimmed());
    settings.setValue(QLatin1String(kMatchKey), match_->text().trimmed());
    settings.setValue(QLatin1String(kTokenFileKey), token_file_->text().trimmed());
    settings.setValue(QLatin1String(kCaFileKey), ca_file_->text().trimmed());
  }
  QDialog::accept();
}

}  // namespace railyard::ui
