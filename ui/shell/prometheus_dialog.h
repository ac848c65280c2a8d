// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>

#include "core/cluster/prometheus_recording.h"

class QComboBox;
class QLabel;
class QLineEdit;

namespace railyard::ui {

// File > Open Prometheus range: which server (URL, label matchers, a bearer token file, a CA
// file) and which range (its length and end) to read. Open stays refused, with the reason
// shown, until the fields make a range (cluster::ResolvePrometheusSource). With `remember`, the
// server's fields are kept in QSettings ("prometheus/..."): file names, never a token.
// GUI thread only.
class PrometheusDialog : public QDialog {
  Q_OBJECT
 public:
  explicit PrometheusDialog(bool remember, QWidget* parent = nullptr);
  cluster::PrometheusSourceSpec Spec() const;
  void SetSpec(const cluster::PrometheusSourceSpec& spec);
  // Why Open is refused now; empty when the fields make a range.
  QString Problem() const;

  void accept() override;

 private:
  const bool remember_;
  QLineEdit* url_;
  QComboBox* since_;
  QLineEdit* until_;
  QLineEdit* match_;
  QLineEdit* token_file_;
  QLineEdit* ca_file_;
  QLabel* problem_;
};

}  // namespace railyard::ui
