// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>

class QLabel;
class QLineEdit;

namespace railyard::ui {

// Asks for another admin token for one node: after its admin service refused the one it had
// (with the reason), or from Node > Edit token. Shown without blocking (QDialog::open), so
// polling and the other nodes carry on while it waits; the window applies the token on accept.
// The field never echoes the token.
//
// Thread safety: GUI thread only.
class TokenDialog : public QDialog {
  Q_OBJECT
 public:
  // `node`: the ClusterState index it asks for; `reason` empty when the user asked to edit.
  TokenDialog(int node, const QString& node_label, const QString& reason,
              QWidget* parent = nullptr);

  int Node() const { return node_; }
  QString Token() const;
  QLineEdit* TokenField() const { return token_; }

 private:
  const int node_;
  QLineEdit* token_;
};

}  // namespace railyard::ui
