// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/demo_dialog.h"

#include <algorithm>

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStringList>
#include <QVBoxLayout>

namespace railyard::ui {

QString RailyardctlCommand(const DemoInfo& info) {
  QStringList parts = {QStringLiteral("railyardctl"), QStringLiteral("status")};
  for (const DemoInfo::Node& node : info.nodes) parts << QStringLiteral("-n") << node.admin;
  if (!info.token.isEmpty()) parts << QStringLiteral("--token") << info.token;
  return parts.join(QLatin1Char(' '));
}

QString RailyardctlLoadCommand(const DemoInfo& info) {
  return QStringLiteral("railyardctl load --cluster %1 --data-token-file %2")
      .arg(info.cluster_file, info.data_token_file);
}

namespace {

// A read-only field holding `text` and a Copy button; both named after `name` for tests and
// accessibility.
QWidget* CopyableField(const QString& text, const QString& name, const QString& what,
                       QWidget* parent) {
  auto* row = new QWidget(parent);
  auto* field = new QLineEdit(text, row);
  field->setReadOnly(true);
  field->setObjectName(name);
  field->setAccessibleName(what);
  field->setCursorPosition(0);
  // Wide enough to show an address or a token whole; a long command line scrolls in its field
  // (Copy takes all of it), so the dialog still fits a 1024-pixel screen.
  constexpr int kWidestField = 560;
  field->setMinimumWidth(std::min(field->fontMetrics().horizontalAdvance(text) + 16, kWidestField));
  auto* copy = new QPushButton(QObject::tr("Copy"), row);
  copy->setObjectName(QStringLiteral("copy_") + name);
  copy->setAccessibleName(QObject::tr("Copy %1").arg(what));
  QObject::connect(copy, &QPushButton::clicked, copy,
                   [text] { QApplication::clipboard()->setText(text); });
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(field, 1);
  layout->addWidget(copy);
  return row;
}

}  // namespace

DemoDialog::DemoDialog(const DemoInfo& info, QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("demoDialog"));
  setWindowTitle(tr("Demo cluster"));
  auto* intro = new QLabel(
      tr("The demo's nodes run on this machine until the console quits. Point railyardctl or "
         "another console at them with these admin addresses and this operator token (valid "
         "for this run only)."),
      this);
  intro->setWordWrap(true);
  auto* form = new QFormLayout;
  for (int i = 0; i < info.nodes.size(); ++i) {
    const DemoInfo::Node& node = info.nodes[i];
    form->addRow(tr("%1 (%2) admin").arg(node.name, node.role),
                 CopyableField(node.admin, QStringLiteral("admin_%1").arg(i),
                               tr("%1 admin address").arg(node.name), this));
  }
  form->addRow(tr("Operator token"),
               CopyableField(info.token, QStringLiteral("token"), tr("operator token"), this));
  form->addRow(tr("railyardctl"), CopyableField(RailyardctlCommand(info), QStringLiteral("command"),
                                                tr("railyardctl command line"), this));
  if (!info.cluster_file.isEmpty()) {
    form->addRow(tr("More load"),
                 CopyableField(RailyardctlLoadCommand(info), QStringLiteral("load_command"),
                               tr("railyardctl load command line"), this));
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(intro);
  layout->addLayout(form);
  layout->addWidget(buttons);
}

}  // namespace railyard::ui
