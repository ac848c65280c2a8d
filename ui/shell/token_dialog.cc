// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/token_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>

namespace railyard::ui {

TokenDialog::TokenDialog(int node, const QString& node_label, const QString& reason,
                         QWidget* parent)
    : QDialog(parent), node_(node), token_(new QLineEdit(this)) {
  setWindowTitle(reason.isEmpty() ? tr("Edit token") : tr("Token refused"));
  token_->setEchoMode(QLineEdit::Password);
  token_->setPlaceholderText(tr("viewer or operator token"));
  auto* form = new QFormLayout(this);
  auto* what = new QLabel(
      reason.isEmpty()
          ? tr("A new admin token for %1.").arg(node_label)
          : tr("%1 refused the admin token: %2\nIt is not polled with that token any more, so "
               "this host is never locked out. Give another token to resume.")
                .arg(node_label, reason),
      this);
  what->setWordWrap(true);
  form->addRow(what);
  form->addRow(tr("Token:"), token_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

QString TokenDialog::Token() const { return token_->text(); }

}  // namespace railyard::ui
