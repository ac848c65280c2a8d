// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>

class QLineEdit;

namespace railyard::ui {

// Asks for a node's admin address and its token. The token field never echoes; the window
// keeps the token in the keyring (or in memory), never in settings.
class ConnectDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ConnectDialog(QWidget* parent = nullptr);
  QString Address() const;
  QString Token() const;

 private:
  QLineEdit* address_;
  QLineEdit* token_;
};

}  // namespace railyard::ui
