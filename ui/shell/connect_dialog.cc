// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/connect_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "ui/sources/live_source.h"

namespace railyard::ui {

ConnectDialog::ConnectDialog(QWidget* parent)
    : QDialog(parent), address_(new QLineEdit(this)), token_(new QLineEdit(this)) {
  setWindowTitle(tr("Add node"));
  address_->setPlaceholderText(QStringLiteral("127.0.0.1:7001"));
  token_->setEchoMode(QLineEdit::Password);
  token_->setPlaceholderText(tr("viewer or operator token (optional)"));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  auto* form = new QFormLayout(this);
  form->addRow(tr("Admin address:"), address_);
  form->addRow(tr("Token:"), token_);
  form->addRow(new QLabel(tr("Tokens are kept in the system keyring, or in memory for this "
                             "session where there is none."),
                          this));
  form->addRow(buttons);
  QPushButton* ok = buttons->button(QDialogButtonBox::Ok);
  ok->setEnabled(false);
  connect(address_, &QLineEdit::textChanged, this, [ok](const QString& text) {
    std::string host;
    uint16_t port = 0;
    ok->setEnabled(ParseAdminAddress(text, &host, &port, nullptr));
  });
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

QString ConnectDialog::Address() const { return address_->text().trimmed(); }
QString ConnectDialog::Token() const { return token_->text(); }

}  // namespace railyard::ui
